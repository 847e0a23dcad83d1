-- Gateway traces whose caller sent a W3C traceparent, found from the agent's trace (its "gateway calls").
CREATE INDEX traces_project_parent_trace ON traces (project_id, parent_trace_id, start_time) WHERE parent_trace_id IS NOT NULL;
