-- Automations (spec part 6): a prompt-version trigger paired with an action (webhook, Slack, PagerDuty), and the
-- webhook outbox that makes their delivery durable: a row is written in the transaction that changed the prompt
-- version and delivered after it commits, retried, with every attempt logged.
CREATE TABLE automations (
  id                    text PRIMARY KEY,
  project_id            text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name                  text NOT NULL,
  event_type            text NOT NULL DEFAULT 'prompt-version' CHECK (event_type = 'prompt-version'),
  -- The trigger's actions, a JSON array drawn from created, updated, deleted.
  actions               jsonb NOT NULL DEFAULT '["created","updated","deleted"]'::jsonb,
  action_type           text NOT NULL CHECK (action_type IN ('webhook', 'slack', 'pagerduty')),
  -- Webhook and Slack: the endpoint; PagerDuty: null (the Events v2 URL comes from gateway.yaml).
  url                   text,
  headers               jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Kept in plaintext, unlike API keys: signing needs the secret itself (HMAC), a hash cannot sign. Shown once.
  signing_secret        text,
  pagerduty_routing_key text,
  enabled               boolean NOT NULL DEFAULT true,
  -- Events (not attempts) whose every attempt failed, in a row; reset by a delivered event.
  consecutive_failures  integer NOT NULL DEFAULT 0,
  disabled_reason       text,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  CHECK ((action_type = 'pagerduty') = (pagerduty_routing_key IS NOT NULL)),
  CHECK (action_type = 'pagerduty' OR url IS NOT NULL)
);
CREATE INDEX automations_project ON automations (project_id);

CREATE TABLE webhook_outbox (
  id             bigserial PRIMARY KEY,
  event_id       text NOT NULL,
  automation_id  text NOT NULL REFERENCES automations(id) ON DELETE CASCADE,
  action         text NOT NULL,
  -- The exact bytes POSTed, built when the event was recorded, so every retry sends the same body.
  body           text NOT NULL,
  attempts       integer NOT NULL DEFAULT 0,
  -- Due time; a claimed row has it pushed past the attempt's timeout (a lease), so a crash mid-attempt retries.
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  state          text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  last_error     text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  finished_at    timestamptz,
  UNIQUE (event_id, automation_id)
);
CREATE INDEX webhook_outbox_due ON webhook_outbox (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_outbox_automation ON webhook_outbox (automation_id, id);

CREATE TABLE webhook_attempts (
  id          bigserial PRIMARY KEY,
  outbox_id   bigint NOT NULL REFERENCES webhook_outbox(id) ON DELETE CASCADE,
  attempt     integer NOT NULL,
  at          timestamptz NOT NULL DEFAULT now(),
  status      integer,
  latency_ms  integer NOT NULL,
  -- The first 1 KB of the answer.
  response    text,
  error       text,
  UNIQUE (outbox_id, attempt)
);
