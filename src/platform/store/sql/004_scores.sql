-- Scores (public API POST/GET/DELETE /api/public/scores and ingestion score-create) and the trace and observation
-- fields Langfuse ingestion carries that the first schema had no column for.

CREATE TABLE scores (
  project_id      text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  id              text NOT NULL,
  trace_id        text,
  observation_id  text,
  session_id      text,
  dataset_run_id  text,
  name            text NOT NULL,
  data_type       text NOT NULL CHECK (data_type IN ('NUMERIC', 'CATEGORICAL', 'BOOLEAN', 'TEXT')),
  -- NUMERIC: the value; BOOLEAN: 1 or 0; CATEGORICAL and TEXT: null (read as 0).
  value           double precision,
  -- BOOLEAN: 'True' or 'False'; CATEGORICAL and TEXT: the value; NUMERIC: null.
  string_value    text,
  comment         text,
  metadata        jsonb NOT NULL DEFAULT '{}'::jsonb,
  source          text NOT NULL DEFAULT 'API' CHECK (source IN ('API', 'ANNOTATION', 'EVAL')),
  config_id       text,
  queue_id        text,
  environment     text NOT NULL DEFAULT 'default',
  timestamp       timestamptz NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id)
);
-- Lists are newest first, filtered by trace, observation, session or name.
CREATE INDEX scores_project_time ON scores (project_id, timestamp DESC, id);
CREATE INDEX scores_project_trace ON scores (project_id, trace_id) WHERE trace_id IS NOT NULL;
CREATE INDEX scores_project_session ON scores (project_id, session_id) WHERE session_id IS NOT NULL;
CREATE INDEX scores_project_name ON scores (project_id, name, timestamp DESC);

ALTER TABLE traces ADD COLUMN public boolean NOT NULL DEFAULT false;
ALTER TABLE observations ADD COLUMN version text;
ALTER TABLE observations ADD COLUMN prompt_name text;
ALTER TABLE observations ADD COLUMN prompt_version integer;
