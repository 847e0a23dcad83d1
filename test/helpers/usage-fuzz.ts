// Shared pieces of the seeded provider-usage fuzz tests (test/integration/fuzz-provider-usage*.test.ts): the seeded
// generator, the counts that are not counts, the answer a client must get, the stored trace each case must leave, what
// /metrics must count, and the ledger and live counter that must agree, also after a restart.
import type { Test } from 'tap';
import type { Database } from '../../src/platform/store/database.ts';
import { listObservationsOfTrace } from '../../src/platform/store/repos/observations.ts';
import { getTrace } from '../../src/platform/store/repos/traces.ts';
import { HELLO_PROMPT, NANO, key, ledgerSpend } from './budget-fixtures.ts';
import { chatBody, type TestService } from './service.ts';
import { waitFor } from './wait-for.ts';

export const SEED = Number(process.env.SVC_FUZZ_SEED ?? 20261202);
/** The bound of one usage field (docs/api.md "Provider usage"). */
export const BOUND = 10_000_000;
export const ALIAS = 'fuzz-usage';
const BUDGET_ID = `key:${ALIAS}:total`;
const COUNTER = [{ key: `{p:default}:budget:${BUDGET_ID}`, periodId: 'total' }];

/** splitmix32: a small seeded PRNG; one per case. */
function splitmix32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x9e3779b9) >>> 0;
    let z = a;
    z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
    z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
    return ((z ^ (z >>> 15)) >>> 0) / 4294967296;
  };
}

/** Case n's random source, from (SEED, n) alone: whole numbers below `max`, and picks. */
export function caseRandom(n: number) {
  const r = splitmix32(SEED ^ Math.imul(n + 1, 0x85ebca6b));
  const int = (max: number) => Math.floor(r() * max);
  return { r, int, pick: <T>(items: readonly T[]): T => items[int(items.length)] };
}

export type Kind = 'sane' | 'invalid' | 'parts_above' | 'missing';

export interface UsageCase {
  n: number;
  kind: Kind;
  stream: boolean;
  /** What the provider puts where its usage goes (undefined: no usage, in the answer or in the stream). */
  usage: unknown;
  /** The answer's text, the same in both shapes. */
  content: string;
  /** For sane cases and parts above their totals: the tokens the trace must book. */
  tokens?: number;
}

export const NOT_COUNTS: readonly unknown[] = [
  -1500,
  -1,
  '1500',
  'abc',
  12.5,
  0.1,
  1e30,
  BOUND + 1,
  2 ** 53 + 2,
  true,
  [],
  {},
];

/** Usage that is not an object. */
export const NOT_OBJECTS: readonly unknown[] = ['lots', 42, [1, 2], true];

export const caseContent = (n: number, words: number) => `case ${n}: ${'word '.repeat(words)}`.trim();

export function usageLabel(c: UsageCase): string {
  return `case ${c.n} (${c.kind}, ${c.stream ? 'stream' : 'json'}, usage ${JSON.stringify(c.usage)})`;
}

/** Sends the case to model group `model` as key ALIAS and checks the answer the client gets; returns the request id. */
async function sendCase(t: Test, gatewayUrl: string, model: string, c: UsageCase): Promise<string> {
  const res = await fetch(`${gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key(ALIAS)}` },
    body: JSON.stringify(chatBody({ model, stream: c.stream, max_tokens: 100 })),
  });
  const text = await res.text();
  const label = `${model} ${usageLabel(c)}`;
  t.equal(res.status, 200, `${label}: 200`);
  if (c.stream) {
    t.ok(text.endsWith('data: [DONE]\n\n'), `${label}: the stream ends with [DONE]`);
    t.notMatch(text, /"error"/, `${label}: no error event`);
  } else {
    t.match(JSON.parse(text), { object: 'chat.completion', choices: [{ message: { content: c.content } }] }, label);
    const estimated = c.kind === 'invalid' || c.kind === 'missing' ? 'true' : 'false';
    t.equal(res.headers.get('x-svc-cost-estimated'), estimated, `${label}: x-svc-cost-estimated ${estimated}`);
  }
  return res.headers.get('x-svc-request-id')!;
}

/** Every component a whole number in range, adding up to the total. */
function saneDetails(t: Test, label: string, details: Record<string, number>): void {
  const { total, ...parts } = details;
  for (const [k, v] of Object.entries(details))
    t.ok(Number.isInteger(v) && v >= 0 && v <= 2 * BOUND, `${label}: ${k} = ${v} is a count`);
  t.equal(
    Object.values(parts).reduce((a, b) => a + b, 0),
    total,
    `${label}: the components add up to the total`,
  );
}

/**
 * Checks the stored trace of a case; returns the nano-USD its generation booked. Prices must make one token cost
 * $0.001, whatever kind of token (budget-fixtures PRICE), so the cost reads as the token count.
 */
async function checkCaseTrace(t: Test, db: Database, c: UsageCase, id: string): Promise<number> {
  const label = usageLabel(c);
  const trace = await waitFor(`${label}: trace stored`, () => getTrace(db, 'default', id), 15_000);
  t.equal(trace.status, 'completed', `${label}: trace completed`);
  const [generation] = await listObservationsOfTrace(db, 'default', id);
  saneDetails(t, label, generation.usageDetails);
  t.equal(generation.totalTokens, generation.usageDetails.total, `${label}: totalTokens`);
  const metadata = trace.metadata;
  if (c.kind === 'invalid' || c.kind === 'missing') {
    const output = Math.ceil(c.content.length / 4);
    t.same(
      generation.usageDetails,
      { input: HELLO_PROMPT, output, total: HELLO_PROMPT + output },
      `${label}: the prompt estimate and the answer's text`,
    );
    t.equal(metadata['gateway.usage_estimated'], `provider_usage_${c.kind}`, `${label}: flagged as estimated`);
    if (c.kind === 'invalid')
      t.type(metadata['gateway.provider_usage_invalid'], 'string', `${label}: says what was wrong`);
  } else {
    t.equal(generation.usageDetails.total, c.tokens, `${label}: the provider's counts`);
    t.notOk('gateway.usage_estimated' in metadata, `${label}: not estimated`);
    if (c.kind === 'parts_above')
      t.type(metadata['gateway.provider_usage_repaired'], 'string', `${label}: says what was clamped`);
    else t.notOk('gateway.provider_usage_repaired' in metadata, `${label}: nothing clamped`);
  }
  t.ok(Number.isFinite(generation.totalCost) && generation.totalCost >= 0, `${label}: a cost`);
  t.equal(Math.round(generation.totalCost * NANO), generation.usageDetails.total * 1e6, `${label}: priced`);
  return Math.round(generation.totalCost * NANO);
}

/** /metrics counts the cases whose usage was estimated, clamped or missing, and no trace was dropped. */
async function checkUsageMetrics(t: Test, adminUrl: string, cases: readonly UsageCase[]): Promise<void> {
  const metrics = (await (await fetch(`${adminUrl}/metrics`)).json()) as any;
  const count = (kind: Kind) => cases.filter((c) => c.kind === kind).length;
  t.same(
    metrics.provider_usage_invalid,
    { total: count('invalid') + count('parts_above'), estimated: count('invalid'), repaired: count('parts_above') },
    '/metrics counts the usage that was estimated and the usage that was clamped',
  );
  t.equal(metrics.provider_usage_missing, count('missing'), '/metrics counts the answers without usage');
  t.equal(metrics.telemetry.traces.dropped, 0, 'no trace dropped');
  const prometheus = await (await fetch(`${adminUrl}/metrics?format=prometheus`)).text();
  t.match(prometheus, `svc_gateway_provider_usage_invalid_total{action="estimated"} ${count('invalid')}`);
  t.match(prometheus, `svc_gateway_provider_usage_missing_total ${count('missing')}`);
}

/** Waits for the ledger to hold `booked` nano-USD and checks that the live budget counter holds the same. */
async function checkLedgerIsCounter(t: Test, svc: TestService, booked: number): Promise<void> {
  const settled = await waitFor('the ledger holds what the traces booked', async () =>
    (await ledgerSpend(svc.service.db, BUDGET_ID)).nano === booked ? booked : undefined,
  );
  const [counter] = await svc.service.counters.readPeriods(COUNTER);
  t.equal(counter, settled, 'the live counter holds what the ledger holds');
}

/**
 * Sends every case as key ALIAS to the model group `modelOf` names, after `queue` has put its answer at the fake
 * provider; then checks each stored trace, what /metrics counts, and that the ledger and the live counter hold what
 * the traces booked. Returns that spend, in nano-USD.
 */
export async function runUsageCases<C extends UsageCase>(
  t: Test,
  svc: TestService,
  cases: readonly C[],
  queue: (c: C) => void,
  modelOf: (c: C) => string,
): Promise<number> {
  const ids: string[] = [];
  for (const c of cases) {
    queue(c);
    ids.push(await sendCase(t, svc.gatewayUrl, modelOf(c), c));
  }
  let booked = 0;
  for (const [i, c] of cases.entries()) booked += await checkCaseTrace(t, svc.service.db, c, ids[i]);
  await checkUsageMetrics(t, svc.adminUrl, cases);
  await checkLedgerIsCounter(t, svc, booked);
  return booked;
}

/**
 * After a restart on the same database, one more request booked at `tokens` tokens: the counter is seeded from the
 * ledger when that request is admitted, so it holds the ledger's spend before the restart plus that request.
 */
export async function checkAfterRestart(
  t: Test,
  svc: TestService,
  model: string,
  before: number,
  tokens: number,
): Promise<void> {
  const after = await fetch(`${svc.gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key(ALIAS)}` },
    body: JSON.stringify(chatBody({ model })),
  });
  t.equal(after.status, 200);
  await after.text();
  const expected = before + tokens * 1e6;
  await waitFor('the ledger after the restart', async () =>
    (await ledgerSpend(svc.service.db, BUDGET_ID)).nano === expected ? true : undefined,
  );
  const [reseeded] = await svc.service.counters.readPeriods(COUNTER);
  t.equal(reseeded, expected, 'after the restart the counter holds the ledger: the spend did not fall');
}
