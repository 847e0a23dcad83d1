// Seeded fuzzing of the usage an OpenAI-compatible provider reports, in JSON answers and in a stream's usage chunk:
// sane counts, counts that are not (negative, strings, fractions, 1e30, above the 10,000,000 bound, null, other
// kinds, a usage that is not an object), parts above their totals (cache reads above the prompt, reasoning above
// the completion, a total that is not the sum) and no usage at all. Every answer is a 200 in the OpenAI envelope;
// every trace is stored with sane usage (an estimate, flagged, where the provider's was not a count or was missing;
// clamped parts where they were above their totals); /metrics counts all three; and the ledger holds what the budget counters booked, also after a restart on
// the same PostgreSQL database. The seed is printed; SVC_FUZZ_SEED replays a run, SVC_FUZZ_CASES sets the number of
// cases (default 48). Case n is generated from (seed, n) alone, so a failure names the case that reproduces it.
import t, { type Test } from 'tap';
import type { Database } from '../../src/store/database.ts';
import { listObservationsOfTrace } from '../../src/store/repos/observations.ts';
import { getTrace } from '../../src/store/repos/traces.ts';
import { HELLO_PROMPT, NANO, PRICE, key } from '../helpers/budget-fixtures.ts';
import { startFakeOpenAI, type Behaviour, type FakeOpenAI } from '../helpers/fake-openai.ts';
import { baseConfig, chatBody, openaiDeployment, startTestService } from '../helpers/service.ts';
import { freshPostgresDatabase } from '../helpers/store.ts';
import { waitFor } from '../helpers/wait-for.ts';

const SEED = Number(process.env.SVC_FUZZ_SEED ?? 20261202);
const CASES = Number(process.env.SVC_FUZZ_CASES ?? 48);
/** The bound of one usage field (docs/api.md "Provider usage"). */
const BOUND = 10_000_000;
const ALIAS = 'fuzz-usage';
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

type Kind = 'sane' | 'invalid' | 'parts_above' | 'missing';

interface UsageCase {
  n: number;
  kind: Kind;
  stream: boolean;
  /** What the provider puts in `usage` (undefined: no usage, in the answer or as a usage chunk). */
  usage: unknown;
  /** The answer's text, the same in both shapes. */
  content: string;
  /** For sane cases: the tokens the trace must book. */
  tokens?: number;
}

const NOT_COUNTS: readonly unknown[] = [
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

function usageCase(n: number): UsageCase {
  const r = splitmix32(SEED ^ Math.imul(n + 1, 0x85ebca6b));
  const int = (max: number) => Math.floor(r() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  const stream = r() < 0.5;
  const content = `case ${n}: ${'word '.repeat(int(40))}`.trim();
  const prompt = int(5000);
  const completion = int(5000);
  const cached = int(prompt + 1);
  const reasoning = int(completion + 1);
  const usage: Record<string, any> = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached },
    completion_tokens_details: { reasoning_tokens: reasoning },
  };
  const kind = pick<Kind>(['sane', 'invalid', 'invalid', 'parts_above', 'missing']);
  if (kind === 'missing') return { n, kind, stream, usage: undefined, content };
  if (kind === 'sane') return { n, kind, stream, usage, content, tokens: prompt + completion };
  if (kind === 'parts_above') {
    const over = 1 + int(1000);
    const part = pick(['cached', 'reasoning', 'total']);
    if (part === 'cached') usage.prompt_tokens_details.cached_tokens = prompt + over;
    else if (part === 'reasoning') usage.completion_tokens_details.reasoning_tokens = completion + over;
    else usage.total_tokens = prompt + completion + over;
    return { n, kind, stream, usage, content, tokens: prompt + completion };
  }
  const bad = pick(NOT_COUNTS);
  switch (int(7)) {
    case 0:
      return { n, kind, stream, usage: pick(['lots', 42, [1, 2], true]), content };
    case 1:
      usage.prompt_tokens = pick([...NOT_COUNTS, null]);
      break;
    case 2:
      usage.completion_tokens = pick([...NOT_COUNTS, null]);
      break;
    case 3:
      usage.total_tokens = bad;
      break;
    case 4:
      usage.prompt_tokens_details.cached_tokens = bad;
      break;
    case 5:
      usage.completion_tokens_details.reasoning_tokens = bad;
      break;
    default:
      usage.prompt_tokens_details.cache_creation_tokens = bad;
  }
  return { n, kind, stream, usage, content };
}

function behaviour(c: UsageCase): Behaviour {
  if (c.stream)
    return {
      type: 'stream',
      pieces: c.content.split(/(?<= )/),
      usage: c.usage as Record<string, unknown> | undefined,
      noUsage: c.kind === 'missing',
    };
  const body = {
    id: `chatcmpl-fuzz-${c.n}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'fake-model',
    choices: [{ index: 0, message: { role: 'assistant', content: c.content }, finish_reason: 'stop' }],
    usage: c.usage,
  };
  return { type: 'json', body };
}

async function ledgerNano(db: Database): Promise<number> {
  const r = await db.query<{ nano: unknown }>(
    'SELECT COALESCE(sum(usd_nano), 0) AS nano FROM budget_spend WHERE budget_id = $1',
    [BUDGET_ID],
  );
  return Number(r.rows[0].nano);
}

function config(upUrl: string, postgresUrl: string) {
  return baseConfig({
    store: { postgres_url: postgresUrl },
    model_groups: [{ name: 'up', deployments: [openaiDeployment('priced-up', upUrl, { price: PRICE })] }],
    keys: [{ alias: ALIAS, key: key(ALIAS), project: 'default', model_groups: ['up'], budget_usd: 1_000_000 }],
    plugins: [{ use: 'auth' }, { use: 'budget' }, { use: 'router' }, { use: 'tracing' }],
  });
}

/** Sends the case and checks the answer the client gets; returns the request id. */
async function send(t: Test, gatewayUrl: string, c: UsageCase): Promise<string> {
  const res = await fetch(`${gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key(ALIAS)}` },
    body: JSON.stringify(chatBody({ model: 'up', stream: c.stream, max_tokens: 100 })),
  });
  const text = await res.text();
  const label = `case ${c.n} (${c.kind}, ${c.stream ? 'stream' : 'json'}, usage ${JSON.stringify(c.usage)})`;
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

/** Checks the stored trace of a case; returns the nano-USD its generation booked. */
async function checkTrace(t: Test, db: Database, c: UsageCase, id: string): Promise<number> {
  const label = `case ${c.n} (${c.kind})`;
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
  // One token costs $0.001: the cost reads as the token count.
  t.equal(Math.round(generation.totalCost * NANO), generation.usageDetails.total * 1e6, `${label}: priced`);
  return Math.round(generation.totalCost * NANO);
}

t.test(`provider usage fuzz (seed ${SEED}, ${CASES} cases)`, async (t) => {
  t.comment(`SVC_FUZZ_SEED=${SEED} SVC_FUZZ_CASES=${CASES}`);
  const up: FakeOpenAI = await startFakeOpenAI();
  t.teardown(() => up.close());
  const postgresUrl = await freshPostgresDatabase(t);
  const first = await startTestService(t, config(up.url, postgresUrl));
  const db = first.service.db;

  const cases = Array.from({ length: CASES }, (_, n) => usageCase(n));
  const ids: string[] = [];
  for (const c of cases) {
    up.queue.push(behaviour(c));
    ids.push(await send(t, first.gatewayUrl, c));
  }
  let booked = 0;
  for (const [i, c] of cases.entries()) booked += await checkTrace(t, db, c, ids[i]);

  const metrics = (await (await fetch(`${first.adminUrl}/metrics`)).json()) as any;
  const count = (kind: Kind) => cases.filter((c) => c.kind === kind).length;
  t.same(
    metrics.provider_usage_invalid,
    { total: count('invalid') + count('parts_above'), estimated: count('invalid'), repaired: count('parts_above') },
    '/metrics counts the usage that was estimated and the usage that was clamped',
  );
  t.equal(metrics.provider_usage_missing, count('missing'), '/metrics counts the answers without usage');
  t.equal(metrics.telemetry.traces.dropped, 0, 'no trace dropped');
  const prometheus = await (await fetch(`${first.adminUrl}/metrics?format=prometheus`)).text();
  t.match(prometheus, `svc_gateway_provider_usage_invalid_total{action="estimated"} ${count('invalid')}`);
  t.match(prometheus, `svc_gateway_provider_usage_missing_total ${count('missing')}`);

  const settled = await waitFor('the ledger holds what the traces booked', async () =>
    (await ledgerNano(db)) === booked ? booked : undefined,
  );
  const [counter] = await first.service.counters.readPeriods(COUNTER);
  t.equal(counter, settled, 'the live counter holds what the ledger holds');
  await first.service.stop();

  // A restart on the same database: the counter is seeded from the ledger when the next request is admitted.
  const second = await startTestService(t, config(up.url, postgresUrl));
  up.queue.push({ type: 'ok', content: 'after the restart', usage: { prompt_tokens: 10, completion_tokens: 5 } });
  const after = await fetch(`${second.gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key(ALIAS)}` },
    body: JSON.stringify(chatBody({ model: 'up' })),
  });
  t.equal(after.status, 200);
  await after.text();
  const expected = settled + 15 * 1e6;
  await waitFor('the ledger after the restart', async () =>
    (await ledgerNano(second.service.db)) === expected ? true : undefined,
  );
  const [reseeded] = await second.service.counters.readPeriods(COUNTER);
  t.equal(reseeded, expected, 'after the restart the counter holds the ledger: the spend did not fall');
});
