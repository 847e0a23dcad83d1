// svc-sdk/openai with the real `openai` npm SDK through the real gateway (demo model group): each call carries the
// active span's traceparent and the session and user ids from withTraceAttributes, and the gateway's trace (id =
// x-svc-request-id) names the agent's trace and span as its parent; the agent's own spans arrive through
// SvcSpanProcessor. Also the headers themselves, configuration from SVC_GATEWAY_URL / SVC_GATEWAY_KEY, and errors.
import { createServer } from 'node:http';
import { context, trace } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import OpenAI from 'openai';
import t from 'tap';
import { listenLocally } from '../../../test/helpers/local-server.ts';
import { waitFor } from '../../../test/helpers/wait-for.ts';
import { SvcConfigError } from '../src/index.ts';
import { gatewayHeaders, gatewayOpenAI, linkedFetch } from '../src/openai.ts';
import { SvcSpanProcessor, withTraceAttributes } from '../src/tracing.ts';
import { TEST_KEY, readPublic, startSdkTestService } from './service.ts';

const svc = await startSdkTestService(t);
const processor = new SvcSpanProcessor(svc.options);
const provider = new NodeTracerProvider({ spanProcessors: [processor] });
provider.register();
t.teardown(() => provider.shutdown());
const tracer = provider.getTracer('agent');

const storedTrace = (id: string, check: (found: any) => boolean) =>
  waitFor(`trace ${id}`, async () => {
    const found = await readPublic(svc, `/api/public/traces/${id}`);
    return found && check(found) ? found : undefined;
  });

t.test(
  'a chat completion made in a span: the gateway trace is the child of that span, with the session and user',
  async (t) => {
    const openai = gatewayOpenAI({ baseUrl: svc.s.gatewayUrl, apiKey: TEST_KEY, maxRetries: 0 });
    t.ok(openai instanceof OpenAI, 'a real OpenAI client');
    const run = await withTraceAttributes({ userId: 'user-9', sessionId: 'conversation-3' }, () =>
      tracer.startActiveSpan('agent-turn', async (agent) => {
        const llm = await tracer.startActiveSpan('plan-step', async (step) => {
          const { data, response } = await openai.chat.completions
            .create({ model: 'demo', messages: [{ role: 'user', content: 'Plan my day' }] })
            .withResponse();
          step.end();
          return {
            content: data.choices[0].message.content,
            requestId: response.headers.get('x-svc-request-id')!,
            spanId: step.spanContext().spanId,
          };
        });
        agent.end();
        return { ...llm, traceId: agent.spanContext().traceId, agentSpanId: agent.spanContext().spanId };
      }),
    );
    t.match(run.content, /Plan my day/);
    t.match(run.requestId, /^[0-9a-f-]{36}$/);

    const gatewayTrace = await storedTrace(run.requestId, () => true);
    t.match(gatewayTrace, {
      id: run.requestId,
      name: 'chat.completions',
      userId: 'user-9',
      sessionId: 'conversation-3',
      parentTraceId: run.traceId,
      parentObservationId: run.spanId,
    });
    t.ok(gatewayTrace.totalCost > 0, 'the call is costed');
    t.match(gatewayTrace.observations, [{ type: 'GENERATION', model: 'mock-small' }]);

    await processor.forceFlush();
    // The public API reads the gateway call's attempt into the agent trace too (docs/public-api.md).
    const viaGateway = (o: any) => o.metadata['gateway.trace_id'] === run.requestId;
    const agentTrace = await storedTrace(
      run.traceId,
      (found) =>
        found.observations.filter((o: any) => !viaGateway(o)).length === 2 && found.observations.some(viaGateway),
    );
    t.match(agentTrace, { name: 'agent-turn', userId: 'user-9', sessionId: 'conversation-3' });
    t.ok(
      agentTrace.observations.some((o: any) => o.id === run.spanId && o.parentObservationId === run.agentSpanId),
      'the calling span is in the agent trace',
    );
    t.match(agentTrace.observations.find(viaGateway), { type: 'GENERATION', parentObservationId: run.spanId });
  },
);

t.test('a streamed completion is linked too', async (t) => {
  const openai = gatewayOpenAI({ baseUrl: `${svc.s.gatewayUrl}/v1/`, apiKey: TEST_KEY, maxRetries: 0 });
  const { requestId, traceId, spanId } = await tracer.startActiveSpan('streaming-step', async (span) => {
    const { data: stream, response } = await openai.chat.completions
      .create({ model: 'demo', messages: [{ role: 'user', content: 'Stream it' }], stream: true })
      .withResponse();
    for await (const _chunk of stream) {
      // drain
    }
    span.end();
    return {
      requestId: response.headers.get('x-svc-request-id')!,
      traceId: span.spanContext().traceId,
      spanId: span.spanContext().spanId,
    };
  });
  t.match(await storedTrace(requestId, () => true), {
    parentTraceId: traceId,
    parentObservationId: spanId,
    userId: null,
    sessionId: null,
  });
});

t.test('the headers each request carries, seen by a local server', async (t) => {
  const seen: Record<string, string | string[] | undefined>[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[]}');
  });
  const local = await listenLocally(server);
  t.teardown(() => local.close());
  let ownFetchCalls = 0;
  const ownFetch = (input: string | URL | Request, init?: RequestInit) => {
    ownFetchCalls++;
    return fetch(input, init);
  };
  const openai = gatewayOpenAI({
    baseUrl: local.url,
    apiKey: 'sk-gw',
    maxRetries: 0,
    defaultHeaders: { 'x-extra': 'kept' },
    fetch: ownFetch,
  });

  await openai.models.list();
  t.equal(seen[0].traceparent, undefined, 'no active span: no traceparent');
  t.equal(seen[0]['svc-user-id'], undefined);
  t.equal(seen[0].authorization, 'Bearer sk-gw');
  t.equal(seen[0]['x-extra'], 'kept', "the client's own headers stay");

  const span = tracer.startSpan('caller');
  await withTraceAttributes({ userId: 'u-1', sessionId: 's-1' }, () =>
    context.with(trace.setSpan(context.active(), span), () => openai.models.list()),
  );
  span.end();
  const { traceId, spanId } = span.spanContext();
  t.equal(seen[1].traceparent, `00-${traceId}-${spanId}-01`);
  t.equal(seen[1]['svc-user-id'], 'u-1');
  t.equal(seen[1]['svc-session-id'], 's-1');
  t.equal(seen[1]['x-extra'], 'kept');
  t.equal(ownFetchCalls, 2, 'a fetch option is wrapped, not replaced');
});

t.test('gatewayHeaders and linkedFetch on their own', async (t) => {
  t.same(gatewayHeaders(), {}, 'nothing active: no headers');
  const span = tracer.startSpan('x');
  const ctx = trace.setSpan(context.active(), span);
  t.same(gatewayHeaders(ctx), { traceparent: `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01` });
  span.end();

  const calls: { input: unknown; headers: Headers }[] = [];
  const fake = async (input: string | URL | Request, init?: RequestInit) => {
    calls.push({ input, headers: new Headers(init?.headers) });
    return new Response('ok');
  };
  await withTraceAttributes({ sessionId: 'only-session' }, () =>
    linkedFetch(fake)('http://example.invalid/x', { headers: { a: '1' } }),
  );
  t.equal(calls[0].input, 'http://example.invalid/x');
  t.equal(calls[0].headers.get('a'), '1');
  t.equal(calls[0].headers.get('svc-session-id'), 'only-session');
  t.equal(calls[0].headers.get('svc-user-id'), null);
});

t.test('configured from SVC_GATEWAY_URL (a trailing /v1 accepted) and SVC_GATEWAY_KEY', async (t) => {
  const saved = { url: process.env.SVC_GATEWAY_URL, key: process.env.SVC_GATEWAY_KEY };
  t.teardown(() => {
    for (const [name, value] of [
      ['SVC_GATEWAY_URL', saved.url],
      ['SVC_GATEWAY_KEY', saved.key],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  process.env.SVC_GATEWAY_URL = `${svc.s.gatewayUrl}/v1`;
  process.env.SVC_GATEWAY_KEY = TEST_KEY;
  const openai = gatewayOpenAI({ maxRetries: 0 });
  t.equal(openai.baseURL, `${svc.s.gatewayUrl}/v1`);
  const models = await openai.models.list();
  t.same(
    models.data.map((m) => m.id),
    ['demo'],
  );

  delete process.env.SVC_GATEWAY_KEY;
  t.throws(
    () => gatewayOpenAI(),
    new SvcConfigError(
      'SVC_GATEWAY_KEY',
      'is not set: set the SVC_GATEWAY_KEY environment variable or pass the apiKey option',
    ),
  );
  t.throws(() => gatewayOpenAI({ apiKey: TEST_KEY, baseUrl: 'gateway:8080' }), {
    name: 'SvcConfigError',
    variable: 'baseUrl',
  });
  delete process.env.SVC_GATEWAY_URL;
  t.throws(() => gatewayOpenAI({ apiKey: TEST_KEY }), { name: 'SvcConfigError', variable: 'SVC_GATEWAY_URL' });
});

t.test("a wrong gateway key is the openai SDK's own AuthenticationError", async (t) => {
  const openai = gatewayOpenAI({ baseUrl: svc.s.gatewayUrl, apiKey: 'sk-not-a-key-0000000000', maxRetries: 0 });
  const err = await openai.chat.completions.create({ model: 'demo', messages: [{ role: 'user', content: 'hi' }] }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof OpenAI.AuthenticationError, `${(err as Error)?.constructor?.name}`);
  t.match(err, { status: 401, code: 'invalid_api_key' });
});
