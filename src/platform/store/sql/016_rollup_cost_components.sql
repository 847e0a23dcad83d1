-- The cost of the rollup's gateway traffic per price component (issue 20, src/pricing/cost.ts keys), nano-USD:
-- {"input": n, "input_cached_tokens": n, "output": n, …}. Their sum is cost_nano_usd for traffic costed from usage;
-- an admission estimate (a stream cut before its usage) counts in cost_nano_usd only. Upserts add key by key.
ALTER TABLE metric_rollups ADD COLUMN cost_components jsonb NOT NULL DEFAULT '{}'::jsonb;
