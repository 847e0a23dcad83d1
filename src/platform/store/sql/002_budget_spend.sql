-- The budget spend ledger: what requests really cost, per budget and period. Each process sums its settled costs
-- for a short while and writes one entry per budget and period (the per-request cost is in the traces). The
-- counters (in-process or Redis) hold the hot totals and are seeded from here when they have none for a period.
CREATE TABLE budget_spend (
  budget_id   text NOT NULL,
  period_id   text NOT NULL,
  -- Unique per entry, so an entry written twice (a retry after a lost reply, a replay) stores once.
  entry_id    text NOT NULL,
  project_id  text NOT NULL,
  -- Integer nano-USD, as the counters count, so sums here and there agree exactly.
  usd_nano    bigint NOT NULL CHECK (usd_nano >= 0),
  requests    integer NOT NULL CHECK (requests > 0),
  at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (budget_id, period_id, entry_id)
);
CREATE INDEX budget_spend_project_at ON budget_spend (project_id, at);
