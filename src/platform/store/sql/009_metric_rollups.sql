-- Rollups of gateway traffic for the dashboard's metrics (docs/dashboard.md "Metrics", docs/dashboard-metrics.md),
-- summed by the trace writer from the traces it stores and added about once a second (src/metrics/).
-- One row per project, period, agent, model group and deployment; '' stands for none so the key is a plain primary
-- key. Each period is kept at the four bucket sizes the dashboard reads (60, 900, 3600 and 21600 seconds), so a
-- chart of any window reads at most 240 rows per key instead of summing 43,200 minutes for 30 days.
CREATE TABLE metric_rollups (
  project_id     text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  period_s       integer NOT NULL CHECK (period_s IN (60, 900, 3600, 21600)),
  period_start   timestamptz NOT NULL,
  agent_id       text NOT NULL DEFAULT '',
  model_group    text NOT NULL DEFAULT '',
  deployment     text NOT NULL DEFAULT '',
  requests       bigint NOT NULL DEFAULT 0,
  errors         bigint NOT NULL DEFAULT 0,
  tokens         bigint NOT NULL DEFAULT 0,
  -- Nano-USD (1e-9): integer sums stay exact.
  cost_nano_usd  bigint NOT NULL DEFAULT 0,
  -- Latency histogram, sparse: {"<bucket index>": count}; buckets in src/metrics/latency-histogram.ts. Upserts add
  -- counts, and merge these objects key by key (src/metrics/rollup-store.ts).
  latency        jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Requests ended by a gateway error code: {"<code>": count}.
  refusals       jsonb NOT NULL DEFAULT '{}'::jsonb,
  cache_hits     bigint NOT NULL DEFAULT 0,
  cache_lookups  bigint NOT NULL DEFAULT 0,
  fallbacks      bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, period_s, period_start, agent_id, model_group, deployment)
);


-- Rollup flushes already applied: a flush retried after its reply was lost adds nothing twice
-- (src/metrics/rollup-flusher.ts). Rows older than a day are pruned.
CREATE TABLE metric_rollup_flushes (
  id          text PRIMARY KEY,
  applied_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX metric_rollup_flushes_applied ON metric_rollup_flushes (applied_at);
