-- Models and prices (public API /models, and the cost of ingested generations), LLM connections (/llm-connections)
-- and annotation queues (/annotation-queues). Built-in models are not rows: they come from src/pricing/prices.ts.

CREATE TABLE models (
  id                text PRIMARY KEY,
  project_id        text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  model_name        text NOT NULL,
  -- Postgres-style regex; a leading (?i) means case-insensitive (translated for JavaScript when matching).
  match_pattern     text NOT NULL,
  start_date        timestamptz,
  unit              text,
  tokenizer_id      text,
  tokenizer_config  jsonb,
  -- [{ id, name, isDefault, priority, conditions: [...], prices: { <usage key>: USD per unit } }], exactly one default.
  pricing_tiers     jsonb NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX models_project ON models (project_id, model_name, id);

-- Which model priced an observation whose cost was calculated (null: the cost came from the event, or none), so a
-- later usage update recomputes a calculated cost but never overwrites one the event gave.
ALTER TABLE observations ADD COLUMN cost_model_id text;

CREATE TABLE llm_connections (
  id                       text PRIMARY KEY,
  project_id               text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  provider                 text NOT NULL,
  adapter                  text NOT NULL CHECK (adapter IN ('anthropic', 'openai', 'azure', 'bedrock', 'google-vertex-ai', 'google-ai-studio')),
  -- AES-256-GCM (src/secrets/secret-box.ts); never returned by the API.
  secret_key_encrypted     text NOT NULL,
  display_secret_key       text NOT NULL,
  base_url                 text,
  custom_models            jsonb NOT NULL DEFAULT '[]'::jsonb,
  with_default_models      boolean NOT NULL DEFAULT true,
  -- The header map encrypted as one JSON text; only its keys are readable.
  extra_headers_encrypted  text,
  extra_header_keys        jsonb NOT NULL DEFAULT '[]'::jsonb,
  config                   jsonb,
  created_at               timestamptz NOT NULL DEFAULT now(),
  updated_at               timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, provider)
);

-- The key that encrypts LLM connection secrets when gateway.yaml sets no store.encryption_key: generated once per
-- store (docs/public-api.md explains the trade-off).
CREATE TABLE installation_secrets (
  name        text PRIMARY KEY,
  value       text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE annotation_queues (
  id                text PRIMARY KEY,
  project_id        text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name              text NOT NULL,
  description       text,
  -- Stored as given: score configs are not checked here.
  score_config_ids  jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, name)
);

CREATE TABLE annotation_queue_items (
  id            text PRIMARY KEY,
  project_id    text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  queue_id      text NOT NULL REFERENCES annotation_queues(id) ON DELETE CASCADE,
  object_id     text NOT NULL,
  object_type   text NOT NULL CHECK (object_type IN ('TRACE', 'OBSERVATION', 'SESSION')),
  status        text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'COMPLETED')),
  completed_at  timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX annotation_queue_items_queue ON annotation_queue_items (queue_id, created_at, id);

-- user_id is text without a foreign key: there is no users table yet.
CREATE TABLE annotation_queue_assignments (
  queue_id    text NOT NULL REFERENCES annotation_queues(id) ON DELETE CASCADE,
  project_id  text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  user_id     text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (queue_id, user_id)
);
