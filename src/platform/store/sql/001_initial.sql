-- svc store, first schema. Runs unchanged on PostgreSQL and on embedded PGlite.
-- Timestamps are timestamptz; ids are text so clients (Langfuse SDKs, the gateway) may choose them.

CREATE TABLE organizations (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE projects (
  id                    text PRIMARY KEY,
  organization_id       text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name                  text NOT NULL,
  max_key_expiry_hours  integer NOT NULL DEFAULT 720 CHECK (max_key_expiry_hours > 0),
  ingestion_only        boolean NOT NULL DEFAULT false,
  metadata              jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_organization ON projects (organization_id);

-- Project and organization API keys (public API Basic auth, REST API Bearer secret).
CREATE TABLE api_keys (
  id               text PRIMARY KEY,
  kind             text NOT NULL CHECK (kind IN ('project', 'organization')),
  organization_id  text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  project_id       text REFERENCES projects(id) ON DELETE CASCADE,
  public_key       text NOT NULL UNIQUE,
  secret_sha256    text NOT NULL UNIQUE,
  display_secret   text NOT NULL,
  note             text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL,
  last_used_at     timestamptz,
  CHECK ((kind = 'project') = (project_id IS NOT NULL))
);
CREATE INDEX api_keys_project ON api_keys (project_id);

-- Every change to an agent or a gateway key takes a new revision; replicas poll for revisions they have not seen.
CREATE SEQUENCE change_revision;

CREATE TABLE agents (
  id          text PRIMARY KEY,
  project_id  text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name        text NOT NULL,
  version     text NOT NULL DEFAULT '',
  framework   text NOT NULL DEFAULT '',
  model       text NOT NULL DEFAULT '',
  status      text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  revision    bigint NOT NULL DEFAULT nextval('change_revision'),
  UNIQUE (project_id, name, version)
);
CREATE INDEX agents_revision ON agents (revision);

CREATE TABLE gateway_keys (
  id                    text PRIMARY KEY,
  project_id            text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  agent_id              text REFERENCES agents(id) ON DELETE CASCADE,
  alias                 text NOT NULL,
  key_sha256            text NOT NULL UNIQUE,
  model_groups          jsonb NOT NULL DEFAULT '[]'::jsonb,
  expires_at            timestamptz,
  rotated_at            timestamptz,
  rotation_grace_hours  double precision NOT NULL DEFAULT 0,
  blocked               boolean NOT NULL DEFAULT false,
  allowed_networks      jsonb,
  rpm                   integer,
  tpm                   integer,
  budget_usd            double precision,
  source                text NOT NULL DEFAULT 'minted' CHECK (source IN ('minted', 'cli', 'dashboard')),
  deleted               boolean NOT NULL DEFAULT false,
  created_at            timestamptz NOT NULL DEFAULT now(),
  revision              bigint NOT NULL DEFAULT nextval('change_revision'),
  UNIQUE (project_id, alias)
);
CREATE INDEX gateway_keys_revision ON gateway_keys (revision);
CREATE INDEX gateway_keys_agent ON gateway_keys (agent_id);

-- Traces and observations. Input and output are JSON values (a REST string is a JSON string).
CREATE TABLE traces (
  project_id       text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  id               text NOT NULL,
  name             text,
  status           text NOT NULL DEFAULT 'in_progress' CHECK (status IN ('in_progress', 'completed', 'error')),
  start_time       timestamptz NOT NULL,
  end_time         timestamptz,
  input            jsonb,
  output           jsonb,
  metadata         jsonb NOT NULL DEFAULT '{}'::jsonb,
  tags             jsonb NOT NULL DEFAULT '{}'::jsonb,
  user_id          text,
  session_id       text,
  agent_id         text,
  source           text NOT NULL DEFAULT 'api' CHECK (source IN ('api', 'gateway', 'ingestion', 'otel')),
  -- Gateway facts (null for traces from the APIs).
  model_group      text,
  deployment       text,
  status_code      integer,
  error_code       text,
  cache_hit        boolean,
  parent_trace_id  text,
  parent_span_id   text,
  environment      text NOT NULL DEFAULT 'default',
  release          text,
  version          text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id)
);
-- List queries filter by project and optional status/agent/user/session, newest first.
CREATE INDEX traces_project_time ON traces (project_id, start_time DESC, id);
CREATE INDEX traces_project_status_time ON traces (project_id, status, start_time DESC);
CREATE INDEX traces_project_agent_time ON traces (project_id, agent_id, start_time DESC) WHERE agent_id IS NOT NULL;
CREATE INDEX traces_project_user_time ON traces (project_id, user_id, start_time DESC) WHERE user_id IS NOT NULL;
CREATE INDEX traces_project_session ON traces (project_id, session_id) WHERE session_id IS NOT NULL;

CREATE TABLE observations (
  project_id             text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  id                     text NOT NULL,
  trace_id               text NOT NULL,
  parent_observation_id  text,
  type                   text NOT NULL DEFAULT 'SPAN',
  name                   text,
  start_time             timestamptz NOT NULL,
  end_time               timestamptz,
  completion_start_time  timestamptz,
  status                 text,
  level                  text NOT NULL DEFAULT 'DEFAULT',
  status_message         text,
  attributes             jsonb NOT NULL DEFAULT '{}'::jsonb,
  input                  jsonb,
  output                 jsonb,
  model                  text,
  model_parameters       jsonb,
  usage_details          jsonb NOT NULL DEFAULT '{}'::jsonb,
  cost_details           jsonb NOT NULL DEFAULT '{}'::jsonb,
  total_tokens           bigint NOT NULL DEFAULT 0,
  total_cost             double precision NOT NULL DEFAULT 0,
  environment            text NOT NULL DEFAULT 'default',
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id)
);
CREATE INDEX observations_trace ON observations (project_id, trace_id, start_time);

CREATE TABLE audit_log (
  id               bigserial PRIMARY KEY,
  at               timestamptz NOT NULL DEFAULT now(),
  organization_id  text,
  project_id       text,
  actor            text NOT NULL,
  action           text NOT NULL,
  resource_type    text NOT NULL,
  resource_id      text,
  details          jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX audit_log_project_at ON audit_log (project_id, at DESC);
