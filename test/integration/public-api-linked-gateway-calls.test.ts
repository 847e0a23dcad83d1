// The public API agrees with the dashboard: an agent trace sent through /api/public/ingestion whose span called the
// gateway with a W3C traceparent naming it reads, through GET /api/public/traces/{id}, the list and the session, with
// that call's attempt as a GENERATION under the span and its cost in totalCost; traces without linked calls keep theirs.
import t from 'tap';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { basicAuth, callAdmin } from '../helpers/public-api.ts';
import { baseConfig, chatBody, startTestService, TEST_KEY } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait-for.ts';

const TRACE = 'f1'.repeat(16);
const OTHER = 'f2'.repeat(16);
const SPAN = 'a3'.repeat(8);
const SDK_COST = 0.00018;
const PRICE = { input_per_mtok: 0.15, output_per_mtok: 0.6 };

t.test('linked gateway calls in the public API', async (t) => {
  const s = await startTestService(
    t,
    baseConfig({ plugins: [{ use: 'auth' }, { use: 'router' }, { use: 'tracing' }] }),
  );
  const key = await createApiKey(s.service.db, {
    kind: 'project',
    organizationId: 'default',
    projectId: 'default',
    now: Date.now(),
  });
  const auth = basicAuth(key);
  const at = (ms: number) => new Date(Date.now() - 5000 + ms).toISOString();
  const event = (id: string, type: string, body: Record<string, unknown>) => ({ id, type, timestamp: at(0), body });
  const ingest = await callAdmin(s, 'POST', '/api/public/ingestion', auth, {
    batch: [
      ...[TRACE, OTHER].map((id) =>
        event(`e-${id}`, 'trace-create', { id, name: 'agent', timestamp: at(0), sessionId: 'conversation-1' }),
      ),
      event('e-span', 'span-create', { id: SPAN, traceId: TRACE, name: 'plan', startTime: at(0), endTime: at(4000) }),
      event('e-gen', 'generation-create', {
        id: 'sdk-generation',
        traceId: TRACE,
        parentObservationId: SPAN,
        name: 'draft',
        startTime: at(100),
        endTime: at(900),
        usageDetails: { input: 120, output: 30 },
        costDetails: { input: 0.00012, output: 0.00006 },
      }),
    ],
  });
  t.equal(ingest.status, 207);
  t.same(ingest.body.errors, []);

  const call = await fetch(`${s.gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${TEST_KEY}`,
      traceparent: `00-${TRACE}-${SPAN}-01`,
    },
    body: JSON.stringify(chatBody({ messages: [{ role: 'user', content: 'check the answer' }] })),
  });
  t.equal(call.status, 200);
  const answer = (await call.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
  const callId = call.headers.get('x-svc-request-id')!;
  const callCost =
    (answer.usage.prompt_tokens * PRICE.input_per_mtok + answer.usage.completion_tokens * PRICE.output_per_mtok) / 1e6;
  t.ok(callCost > 0, 'the demo group is priced');

  const gatewayTrace = await waitFor('the gateway trace', async () => {
    const r = await callAdmin(s, 'GET', `/api/public/traces/${callId}`, auth);
    return r.status === 200 && r.body.observations.length > 0 ? r.body : undefined;
  });
  t.equal(gatewayTrace.parentTraceId, TRACE, 'the gateway trace names the agent trace');
  t.equal(gatewayTrace.parentObservationId, SPAN, 'and the span that called');

  await t.test('GET /api/public/traces/{id}: the call is a generation under the span, its cost summed', async (t) => {
    const r = await callAdmin(s, 'GET', `/api/public/traces/${TRACE}`, auth);
    t.equal(r.status, 200);
    const attempt = r.body.observations.find((o: any) => o.id === `${callId}.1`);
    t.ok(attempt, 'the call’s attempt is among the observations');
    t.match(attempt, {
      type: 'GENERATION',
      traceId: TRACE,
      parentObservationId: SPAN,
      metadata: { 'gateway.trace_id': callId, 'gateway.deployment': 'demo-mock' },
      usageDetails: { input: answer.usage.prompt_tokens, output: answer.usage.completion_tokens },
    });
    t.ok(Math.abs(attempt.calculatedTotalCost - callCost) < 1e-12, `the attempt costs ${callCost}`);
    t.same(
      r.body.observations.map((o: any) => o.id).sort(),
      [SPAN, 'sdk-generation', `${callId}.1`].sort(),
      'its own observations and the call’s',
    );
    t.ok(Math.abs(r.body.totalCost - (SDK_COST + callCost)) < 1e-12, `totalCost ${r.body.totalCost}`);
  });

  await t.test('the list: the summed cost and the call’s observation id; an unlinked trace unchanged', async (t) => {
    const r = await callAdmin(s, 'GET', '/api/public/traces?limit=10', auth);
    t.equal(r.status, 200);
    const byId = new Map(r.body.data.map((row: any) => [row.id, row]));
    const agent: any = byId.get(TRACE);
    t.ok(Math.abs(agent.totalCost - (SDK_COST + callCost)) < 1e-12, `totalCost ${agent.totalCost}`);
    t.same(agent.observations, [SPAN, 'sdk-generation', `${callId}.1`]);
    const other: any = byId.get(OTHER);
    t.equal(other.totalCost, 0);
    t.same(other.observations, []);
    t.ok(byId.has(callId), 'the gateway trace is still listed on its own');
  });

  await t.test('the session: its agent trace with the summed cost', async (t) => {
    const r = await callAdmin(s, 'GET', '/api/public/sessions/conversation-1', auth);
    t.equal(r.status, 200);
    const agent = r.body.traces.find((row: any) => row.id === TRACE);
    t.ok(Math.abs(agent.totalCost - (SDK_COST + callCost)) < 1e-12, `totalCost ${agent.totalCost}`);
  });
});
