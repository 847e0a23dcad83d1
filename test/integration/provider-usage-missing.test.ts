// A provider answer that comes without usage (a JSON answer without `usage`, a stream that ends normally without a
// usage chunk) is booked at an estimate — the prompt estimate plus the answer's text at the estimator's 4 characters
// a token — priced, settled into the budget (ledger and live counter alike), written on the trace flagged
// `gateway.usage_estimated: "provider_usage_missing"`, and counted on /metrics; never $0 on the trace while the
// budget keeps the reservation.
import t, { type Test } from 'tap';
import { listObservationsOfTrace } from '../../src/platform/store/repos/observations.ts';
import { getTrace } from '../../src/platform/store/repos/traces.ts';
import { HELLO_PROMPT, NANO } from '../helpers/budget-fixtures.ts';
import { chatAs, settledSpend, startBudgetedService } from '../helpers/budgeted-upstream.ts';
import { chatCompletion, startFakeOpenAI, type Behaviour } from '../helpers/fake-openai.ts';
import { waitFor } from '../helpers/wait-for.ts';

const ANSWER = 'An answer the provider sent without counting it';
const PIECES = ['Hello', ' from', ' a stream', ' without usage'];

/** The fake's chat.completion with its `usage` member left out. */
function completionWithoutUsage(content: string): Record<string, unknown> {
  const { usage: _usage, ...body } = chatCompletion(content);
  return body;
}

async function missingUsage(t: Test, alias: string, stream: boolean, behaviour: Behaviour, answer: string) {
  const up = await startFakeOpenAI(behaviour);
  t.teardown(() => up.close());
  const svc = await startBudgetedService(t, alias, up.url);
  const res = await chatAs(svc, alias, stream);
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-svc-cost-estimated'), 'true', 'the cost is flagged as estimated');
  const text = await res.text();
  if (stream) {
    t.ok(text.endsWith('data: [DONE]\n\n'), 'the stream ends with [DONE]');
    t.notMatch(text, /"error"/, 'no error event');
  } else {
    const body = JSON.parse(text);
    t.equal(body.choices[0].message.content, answer);
    t.notOk('usage' in body, "the client's answer is the provider's, without usage");
  }

  const output = Math.ceil(answer.length / 4);
  const tokens = HELLO_PROMPT + output;
  const usd = tokens / 1000;
  if (!stream) t.equal(Number(res.headers.get('x-svc-cost')), usd, `x-svc-cost is the estimate: $${usd}`);
  const id = res.headers.get('x-svc-request-id')!;
  const db = svc.service.db;
  const trace = await waitFor(`trace ${id} stored`, () => getTrace(db, 'default', id), 15_000);
  t.equal(trace.status, 'completed');
  t.equal(trace.metadata['gateway.usage_estimated'], 'provider_usage_missing', 'the trace says its usage is estimated');
  const [generation] = await listObservationsOfTrace(db, 'default', id);
  t.same(
    generation.usageDetails,
    { input: HELLO_PROMPT, output, total: tokens },
    "the prompt estimate and the answer's text",
  );
  t.ok(Math.abs(generation.totalCost - usd) < 1e-12, `priced: $${generation.totalCost}`);
  t.equal(generation.attributes['gateway.usage_estimated'], 'provider_usage_missing');
  t.equal(generation.status, 'ok');

  const spend = await settledSpend(svc, alias);
  t.equal(spend.ledger, Math.round(usd * NANO), 'the ledger holds the trace cost, not the reservation');
  t.equal(spend.counter, spend.ledger, 'the live counter holds what the ledger holds');

  const metrics = (await (await fetch(`${svc.adminUrl}/metrics`)).json()) as Record<string, any>;
  t.equal(metrics.provider_usage_missing, 1, '/metrics counts the answer without usage');
  t.same(metrics.provider_usage_invalid, { total: 0, estimated: 0, repaired: 0 }, 'and not as invalid usage');
  const prometheus = await (await fetch(`${svc.adminUrl}/metrics?format=prometheus`)).text();
  t.match(prometheus, /^svc_gateway_provider_usage_missing_total 1$/m);
}

t.test('a JSON answer without usage: the prompt estimate plus the answer text', (t) =>
  missingUsage(t, 'json-no-usage', false, { type: 'json', body: completionWithoutUsage(ANSWER) }, ANSWER),
);

t.test('a stream that ends without a usage chunk: the prompt estimate plus the streamed text', (t) =>
  missingUsage(t, 'stream-no-usage', true, { type: 'stream', pieces: PIECES, noUsage: true }, PIECES.join('')),
);
