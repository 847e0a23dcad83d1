-- The budget spend ledger: what each request really cost, one row per budget it counted against. The counters
-- (in-process or Redis) hold the hot totals and are seeded from here when they have none for a period.
CREATE TABLE budget_spend (
  budget_id   text NOT NULL,
  period_id   text NOT NULL,
  request_id  text NOT NULL,
  project_id  text NOT NULL,
  -- Integer nano-USD, as the counters count, so sums here and there agree exactly.
  usd_nano    bigint NOT NULL CHECK (usd_nano >= 0),
  at          timestamptz NOT NULL DEFAULT now(),
  -- One row per request and budget: a batch written twice (retry, replay) stores once.
  PRIMARY KEY (budget_id, period_id, request_id)
);
CREATE INDEX budget_spend_project_at ON budget_spend (project_id, at);
