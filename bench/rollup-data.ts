// Synthetic gateway traffic for bench/rollups.ts: the metric rollup rows that a given number of traces over some days
// would leave (generated directly, at every bucket size, as the trace writer keeps them), and gateway trace items for
// checking on a smaller sample that the real path (traces → rollups) gives the same totals.
import { randomUUID } from 'node:crypto';
import { record } from '../src/platform/telemetry/latency-histogram.ts';
import { BUCKET_SECONDS, type RollupRow } from '../src/platform/store/repos/metric-rollups.ts';
import { emptyRollupRow } from '../src/gateway/tracing/rollup-accumulator.ts';
import { upsertRollups } from '../src/platform/store/repos/metric-rollups.ts';
import type { Queryable } from '../src/platform/store/database.ts';
import type { TraceItem } from '../src/gateway/tracing/trace-item.ts';

export const AGENTS = ['', 'planner', 'coder', 'reviewer', 'support', 'triage'];
/** Model group, deployment, median latency (ms), USD per token, share of traffic. */
export const DEPLOYMENTS = [
  { group: 'chat', deployment: 'chat-openai', medianMs: 700, usdPerToken: 2e-6, share: 0.4 },
  { group: 'chat', deployment: 'chat-azure', medianMs: 900, usdPerToken: 2e-6, share: 0.25 },
  { group: 'fast', deployment: 'fast-mock', medianMs: 120, usdPerToken: 1e-7, share: 0.25 },
  { group: 'reasoning', deployment: 'reasoning-anthropic', medianMs: 4000, usdPerToken: 1.5e-5, share: 0.1 },
];
const AGENT_SHARE = [0.1, 0.3, 0.25, 0.15, 0.12, 0.08];
const REFUSALS = ['rate_limit_exceeded', 'budget_exceeded', 'guardrail_blocked', 'upstream_timeout'];

/** A deterministic pseudo-random source (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let r = Math.imul(a ^ (a >>> 15), 1 | a);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

interface Request {
  latencyMs: number;
  tokens: number;
  costUsd: number;
  refusal?: string;
  error: boolean;
  cacheLookup: boolean;
  cacheHit: boolean;
  fallback: boolean;
}

function drawRequest(random: () => number, d: (typeof DEPLOYMENTS)[number]): Request {
  const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const u = random();
  const refusal = u < 0.01 ? REFUSALS[Math.floor(random() * REFUSALS.length)] : undefined;
  const cacheLookup = random() < 0.5;
  const cacheHit = cacheLookup && random() < 0.2;
  const tokens = refusal || cacheHit ? 0 : 200 + Math.floor(random() * 1300);
  return {
    latencyMs: cacheHit
      ? Math.floor(random() * 3)
      : refusal
        ? 1 + Math.floor(random() * 5)
        : Math.round(d.medianMs * Math.exp(0.6 * normal)),
    tokens,
    costUsd: cacheHit ? 0 : tokens * d.usdPerToken,
    refusal,
    error: refusal !== undefined || u > 0.985,
    cacheLookup,
    cacheHit,
    fallback: random() < 0.005,
  };
}

function addRequest(row: RollupRow, r: Request): void {
  row.requests++;
  if (r.error) row.errors++;
  row.tokens += r.tokens;
  row.costNanoUsd += Math.round(r.costUsd * 1e9);
  record(row.latency, r.latencyMs);
  if (r.refusal) row.refusals[r.refusal] = (row.refusals[r.refusal] ?? 0) + 1;
  if (r.cacheHit) row.cacheHits++;
  if (r.cacheLookup) row.cacheLookups++;
  if (r.fallback) row.fallbacks++;
}

function addRow(target: RollupRow, source: RollupRow): void {
  target.requests += source.requests;
  target.errors += source.errors;
  target.tokens += source.tokens;
  target.costNanoUsd += source.costNanoUsd;
  for (const k in source.latency) target.latency[k] = (target.latency[k] ?? 0) + source.latency[k];
  for (const k in source.refusals) target.refusals[k] = (target.refusals[k] ?? 0) + source.refusals[k];
  target.cacheHits += source.cacheHits;
  target.cacheLookups += source.cacheLookups;
  target.fallbacks += source.fallbacks;
}

export interface FillStats {
  traces: number;
  rows: number;
  seconds: number;
}

/**
 * Fills metric_rollups for `projectId` as `traces` gateway requests over `days` days ending at `now` would: per minute
 * and per agent × deployment, a request count around the mean (with a day/night swing), each request drawn (latency,
 * tokens, cost, refusal, cache, fallback); coarser periods are the sums of their minutes.
 */
export async function fillRollups(
  db: Queryable,
  o: { projectId: string; traces: number; days: number; now: number; chunk?: number },
): Promise<FillStats> {
  const t0 = performance.now();
  const random = seededRandom(7);
  const minutes = o.days * 1440;
  const perMinute = o.traces / minutes;
  const first = Math.floor(o.now / 60_000) * 60_000 - (minutes - 1) * 60_000;
  const open = new Map<string, RollupRow>();
  let pending: RollupRow[] = [];
  let traces = 0;
  let rows = 0;
  const flush = async (force = false) => {
    if (pending.length < (o.chunk ?? 4000) && !(force && pending.length > 0)) return;
    rows += pending.length;
    await upsertRollups(db, pending, randomUUID());
    pending = [];
  };
  for (let m = 0; m < minutes; m++) {
    const start = first + m * 60_000;
    const swing = 1 + 0.5 * Math.sin((2 * Math.PI * (start % 86_400_000)) / 86_400_000);
    for (let a = 0; a < AGENTS.length; a++) {
      for (const d of DEPLOYMENTS) {
        const mean = perMinute * swing * AGENT_SHARE[a] * d.share;
        const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
        const n = Math.max(0, Math.round(mean + Math.sqrt(mean) * normal));
        if (n === 0) continue;
        const minute = emptyRollupRow(o.projectId, 60, start, AGENTS[a], d.group, d.deployment);
        for (let i = 0; i < n; i++) addRequest(minute, drawRequest(random, d));
        traces += n;
        pending.push(minute);
        for (const periodS of BUCKET_SECONDS.slice(1)) {
          const size = periodS * 1000;
          const periodStart = Math.floor(start / size) * size;
          const key = `${periodS}|${AGENTS[a]}|${d.deployment}`;
          let row = open.get(key);
          if (row && row.periodStart !== new Date(periodStart).toISOString()) {
            pending.push(row);
            row = undefined;
          }
          if (!row)
            open.set(key, (row = emptyRollupRow(o.projectId, periodS, periodStart, AGENTS[a], d.group, d.deployment)));
          addRow(row, minute);
        }
      }
    }
    await flush();
  }
  pending.push(...open.values());
  await flush(true);
  return { traces, rows, seconds: (performance.now() - t0) / 1000 };
}

/**
 * `n` finished gateway traces of the last `spanMs` before `now`, with their generations, as the tracing plugin makes
 * them, oldest first (as the trace writer's queue holds them), spread over every agent and deployment or, with
 * `oneKey`, all of one.
 */
export function sampleTraceItems(
  projectId: string,
  n: number,
  now: number,
  spanMs: number,
  seed = 11,
  oneKey = false,
): TraceItem[] {
  const random = seededRandom(seed);
  const items: TraceItem[] = [];
  for (let i = 0; i < n; i++) {
    // oneKey: a single agent and deployment, as in `npm run bench`'s traced target.
    const d = oneKey ? DEPLOYMENTS[0] : DEPLOYMENTS[Math.floor(random() * DEPLOYMENTS.length)];
    const agent = oneKey ? AGENTS[1] : AGENTS[Math.floor(random() * AGENTS.length)];
    const r = drawRequest(random, d);
    const start = now - spanMs + Math.floor((i * spanMs) / n);
    const id = `sample-${seed}-${i}`;
    const metadata: Record<string, unknown> = {
      'gateway.route': '/v1/chat/completions',
      'gateway.status': r.error ? 429 : 200,
    };
    if (r.cacheLookup) metadata['gateway.cache'] = r.cacheHit ? 'hit' : 'miss';
    if (r.fallback) metadata['gateway.fallback_from'] = 'primary';
    items.push({
      trace: {
        projectId,
        id,
        name: 'chat.completions',
        status: r.error ? 'error' : 'completed',
        startTime: new Date(start).toISOString(),
        endTime: new Date(start + r.latencyMs).toISOString(),
        metadata,
        agentId: agent === '' ? null : agent,
        source: 'gateway',
        modelGroup: d.group,
        deployment: r.refusal ? null : d.deployment,
        statusCode: r.error ? 429 : 200,
        errorCode: r.refusal ?? null,
        cacheHit: r.cacheHit,
      },
      observations:
        r.refusal || r.cacheHit
          ? []
          : [
              {
                projectId,
                id: `${id}.1`,
                traceId: id,
                type: 'GENERATION',
                startTime: new Date(start).toISOString(),
                endTime: new Date(start + r.latencyMs).toISOString(),
                totalTokens: r.tokens,
                totalCost: r.costUsd,
              },
            ],
    });
  }
  return items;
}
