-- Prompt versions (public API /api/public/v2/prompts, reference §9). One row per version of a named prompt; the name
-- may hold `/` (folders). Labels are unique per name (a label is on at most one version) and `latest` always sits on
-- the newest version: both are kept by src/store/repos/prompts.ts, which serialises the writers of one name.
CREATE TABLE prompts (
  id              text PRIMARY KEY,
  project_id      text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name            text NOT NULL,
  version         integer NOT NULL CHECK (version >= 1),
  type            text NOT NULL CHECK (type IN ('text', 'chat')),
  -- Text prompts: a JSON string; chat prompts: the messages array.
  prompt          jsonb NOT NULL,
  config          jsonb NOT NULL DEFAULT '{}'::jsonb,
  labels          text[] NOT NULL DEFAULT '{}',
  tags            text[] NOT NULL DEFAULT '{}',
  commit_message  text,
  created_by      text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, name, version)
);
-- Get by version and by label, and the list (grouped by name, in name order), use the unique index's prefix; the
-- list's label and tag filters across names use these.
CREATE INDEX prompts_labels ON prompts USING gin (labels);
CREATE INDEX prompts_tags ON prompts USING gin (tags);
CREATE INDEX prompts_project_updated ON prompts (project_id, updated_at);
