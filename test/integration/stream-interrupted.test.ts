// A stream the provider cuts after some chunks: the client gets what was streamed, the in-band
// `upstream_stream_error` and `[DONE]`; the request is booked at what it consumed — the prompt (the provider's count
// when a chunk carried one, else the admission estimate) and the output streamed before the cut, counted by the
// token estimator — and the trace, the ledger and the budget counters hold the same figure, marked as estimated.
import t, { type Test } from 'tap';
import { listObservationsOfTrace } from '../../src/platform/store/repos/observations.ts';
import { getTrace } from '../../src/platform/store/repos/traces.ts';
import { HELLO_PROMPT, NANO } from '../helpers/budget-fixtures.ts';
import { chatAs, settledSpend, startBudgetedService } from '../helpers/budgeted-upstream.ts';
import { startFakeOpenAI } from '../helpers/fake-openai.ts';
import { waitFor } from '../helpers/wait-for.ts';

const PIECES = ['Hello', ' from', ' a', ' stream', ' that', ' breaks'];
/** Frames written before the socket is destroyed: the role chunk and the first three pieces. */
const CUT_AFTER = 4;
/** "Hello from a": 12 characters, 3 tokens at the estimator's 4 characters a token. */
const STREAMED_TOKENS = 3;

async function cutStream(t: Test, alias: string, promptTokensEachChunk: number | undefined, expectedPrompt: number) {
  // The gap lets each frame leave before the socket is destroyed.
  const up = await startFakeOpenAI({
    type: 'stream',
    pieces: PIECES,
    cutAfter: CUT_AFTER,
    gapMs: 10,
    promptTokensEachChunk,
  });
  t.teardown(() => up.close());
  const svc = await startBudgetedService(t, alias, up.url);
  const res = await chatAs(svc, alias, true);
  t.equal(res.status, 200);
  const id = res.headers.get('x-svc-request-id')!;
  const events = (await res.text())
    .split('\n\n')
    .filter((e) => e !== '')
    .map((e) => e.slice('data: '.length));
  t.equal(events.at(-1), '[DONE]', 'the stream still ends with [DONE]');
  const error = JSON.parse(events.at(-2)!);
  t.match(error, { error: { code: 'upstream_stream_error', type: 'server_error' } }, 'the in-band error event');
  const streamed = events
    .slice(0, -2)
    .map((e) => JSON.parse(e).choices?.[0]?.delta?.content ?? '')
    .join('');
  t.equal(streamed, 'Hello from a', 'what the provider streamed before the cut reached the client');

  const tokens = expectedPrompt + STREAMED_TOKENS;
  const usd = tokens / 1000;
  const db = svc.service.db;
  const trace = await waitFor(`trace ${id} stored`, () => getTrace(db, 'default', id), 15_000);
  t.equal(trace.status, 'error');
  t.equal(trace.errorCode, 'upstream_stream_error');
  t.equal(trace.metadata['gateway.usage_estimated'], 'stream_interrupted', 'the trace says its usage is estimated');
  const [generation] = await listObservationsOfTrace(db, 'default', id);
  t.same(
    generation.usageDetails,
    { input: expectedPrompt, output: STREAMED_TOKENS, total: tokens },
    'the prompt and the output streamed before the cut',
  );
  t.equal(generation.totalTokens, tokens);
  t.ok(Math.abs(generation.totalCost - usd) < 1e-12, `priced: $${generation.totalCost}`);
  t.equal(generation.attributes['gateway.usage_estimated'], 'stream_interrupted');
  t.equal(generation.level, 'ERROR', 'the generation is marked as failed');
  t.equal(generation.status, 'interrupted');
  t.match(generation.statusMessage, /^stream interrupted: /);

  const spend = await settledSpend(svc, alias);
  t.equal(spend.ledger, Math.round(usd * NANO), 'the ledger holds the trace cost, not the reservation');
  t.equal(spend.counter, spend.ledger, 'the live counter holds what the ledger holds');
}

t.test('cut without a provider prompt count: the prompt estimate plus the streamed output', (t) =>
  cutStream(t, 'cut-estimate', undefined, HELLO_PROMPT),
);

t.test("cut after chunks that carried the provider's prompt count: that count plus the streamed output", (t) =>
  cutStream(t, 'cut-counted', 40, 40),
);
