-- The dashboard's trace list ordered by latency (a trace's duration, end minus start), either way, paged by keyset on
-- (duration, id): read along this index, a page deep in the list costs what the first does. Traces still in progress
-- have no duration and are not in that order.
CREATE INDEX traces_project_latency ON traces (project_id, (end_time - start_time), id) WHERE end_time IS NOT NULL;
