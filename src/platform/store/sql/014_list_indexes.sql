-- Indexes for the filters of the trace, observation and session lists (docs/public-api.md, docs/rest-api.md), so
-- a page is found without reading the project's whole history (docs/decisions.md "List queries: time limits and
-- totals").

-- Trace list by name or by environment, newest first (the time order comes from the index, read backwards, so LIMIT
-- stops early). Ascending: rows arrive in time order, and a descending index fills only about half of its pages.
CREATE INDEX traces_project_name_time ON traces (project_id, name, start_time);
CREATE INDEX traces_project_environment_time ON traces (project_id, environment, start_time);
-- Tags (`k`: key present, `k:v`: key holding the value) and metadata filters, written as `?` and `@>`.
CREATE INDEX traces_tags ON traces USING gin (tags);
CREATE INDEX traces_metadata ON traces USING gin (metadata jsonb_path_ops);
-- A session's traces in time order: the session filter, and the sessions list, which finds each session's first
-- trace with it. Replaces the index on (project_id, session_id).
CREATE INDEX traces_project_session_time ON traces (project_id, session_id, start_time) WHERE session_id IS NOT NULL;
DROP INDEX traces_project_session;

-- Observation lists (v1 pages, v2 cursor): newest start time to the millisecond first, read backwards (ties on id are
-- sorted as they come: the id would double the index). In UTC, so the expression is immutable (date_trunc of a timestamptz
-- depends on the session's time zone).
CREATE INDEX observations_project_time
  ON observations (project_id, date_trunc('milliseconds', start_time AT TIME ZONE 'UTC'));
