// Sums gateway traces into rollup rows, one per project, period (each bucket size), agent, model group and
// deployment. What counts is in docs/dashboard-metrics.md: every gateway request that was traced, in the period of
// its start time.
import { BUCKET_SECONDS, type RollupRow } from '../../platform/store/repos/metric-rollups.ts';
import { bucketOf } from '../../platform/telemetry/latency-histogram.ts';
import type { TraceItem } from './trace-item.ts';

/** Cache outcomes of the `gateway.cache` trace annotation that read the cache (refresh and bypass do not). */
const LOOKUPS = new Set(['hit', 'miss', 'unavailable']);

const SUSPECT = /[\u0000\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A key part as the store can hold it: no U+0000 or lone surrogates (jsonb refuses them, as for trace rows), and
 * short enough for a btree key (a model group may be a client's model string when no group matched).
 */
function keyText(value: string | null | undefined): string {
  if (!value) return '';
  const text = value.length > 256 ? value.slice(0, 256) : value;
  return SUSPECT.test(text) ? text.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\ufffd') : text;
}

/**
 * A generation's cost details other than `total`, in nano-USD, added to `sum` (created when there are any). Gateway
 * traces only, so the keys are the pricing module's.
 */
function addComponents(
  sum: Record<string, number> | undefined,
  details: Record<string, number> | undefined,
): Record<string, number> | undefined {
  if (!details) return sum;
  for (const [key, usd] of Object.entries(details)) {
    if (key === 'total' || !Number.isFinite(usd)) continue;
    (sum ??= {})[key] = (sum[key] ?? 0) + Math.round(usd * 1e9);
  }
  return sum;
}

const countsInRollups = (item: TraceItem): boolean =>
  item.trace.source === 'gateway' && item.trace.status !== 'in_progress';

export class RollupAccumulator {
  readonly #rows = new Map<string, RollupRow>();

  add(item: TraceItem): void {
    if (!countsInRollups(item)) return;
    const t = item.trace;
    const start = Date.parse(t.startTime);
    const bucket = t.endTime ? bucketOf(Date.parse(t.endTime) - start) : undefined;
    let tokens = 0;
    let cost = 0;
    let components: Record<string, number> | undefined;
    for (const o of item.observations) {
      if (o.type !== 'GENERATION') continue;
      tokens += o.totalTokens ?? 0;
      cost += o.totalCost ?? 0;
      components = addComponents(components, o.costDetails);
    }
    const costNano = Number.isFinite(cost) ? Math.round(cost * 1e9) : 0;
    const metadata = t.metadata ?? {};
    const cache = metadata['gateway.cache'];
    const error = t.status === 'error' ? 1 : 0;
    const lookup = typeof cache === 'string' && LOOKUPS.has(cache) ? 1 : 0;
    const fallback = metadata['gateway.fallback_from'] !== undefined ? 1 : 0;
    const agentId = keyText(t.agentId);
    const modelGroup = keyText(t.modelGroup);
    const deployment = keyText(t.deployment);
    for (const periodS of BUCKET_SECONDS) {
      const row = this.#row(t.projectId, periodS, start, agentId, modelGroup, deployment);
      row.requests++;
      row.errors += error;
      row.tokens += tokens;
      row.costNanoUsd += costNano;
      if (components)
        for (const [k, nano] of Object.entries(components)) row.costComponents[k] = (row.costComponents[k] ?? 0) + nano;
      if (bucket !== undefined) row.latency[bucket] = (row.latency[bucket] ?? 0) + 1;
      if (t.errorCode) row.refusals[t.errorCode] = (row.refusals[t.errorCode] ?? 0) + 1;
      if (t.cacheHit) row.cacheHits++;
      row.cacheLookups += lookup;
      row.fallbacks += fallback;
    }
  }

  get size(): number {
    return this.#rows.size;
  }

  /** The rows summed so far, in key order (so concurrent upserts lock rows in the same order). */
  rows(): RollupRow[] {
    return [...this.#rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  }

  #row(
    projectId: string,
    periodS: number,
    startMs: number,
    agentId: string,
    modelGroup: string,
    deployment: string,
  ): RollupRow {
    const size = periodS * 1000;
    const periodStart = Math.floor(startMs / size) * size;
    const key = `${projectId}\u0000${periodS}\u0000${periodStart}\u0000${agentId}\u0000${modelGroup}\u0000${deployment}`;
    let row = this.#rows.get(key);
    if (!row)
      this.#rows.set(key, (row = emptyRollupRow(projectId, periodS, periodStart, agentId, modelGroup, deployment)));
    return row;
  }
}

export function emptyRollupRow(
  projectId: string,
  periodS: number,
  periodStartMs: number,
  agentId: string,
  modelGroup: string,
  deployment: string,
): RollupRow {
  return {
    projectId,
    periodS,
    periodStart: new Date(periodStartMs).toISOString(),
    agentId,
    modelGroup,
    deployment,
    requests: 0,
    errors: 0,
    tokens: 0,
    costNanoUsd: 0,
    costComponents: {},
    latency: {},
    refusals: {},
    cacheHits: 0,
    cacheLookups: 0,
    fallbacks: 0,
  };
}
