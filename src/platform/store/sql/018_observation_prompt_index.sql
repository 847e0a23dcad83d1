-- The observations that used a prompt's versions (the dashboard's per-version generations and their sums): found by
-- name and version without reading the project's other observations. Most observations name no prompt.
CREATE INDEX observations_project_prompt
  ON observations (project_id, prompt_name, prompt_version, start_time)
  WHERE prompt_name IS NOT NULL;
