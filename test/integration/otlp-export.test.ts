// Export of gateway traces to an OpenTelemetry collector (tracing.otlp; docs/decisions.md "Issue 20: OTLP export"):
// requests through the openai SDK, spans decoded by a real OTLP/HTTP receiver with the OTel protobuf definitions.
import OpenAI from 'openai';
import t, { type Test } from 'tap';
import { silentLogger } from '../../src/platform/telemetry/logger.ts';
import { OtlpExport } from '../../src/gateway/tracing/otlp/otlp-export.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.ts';
import { startFakeCollector, type FakeCollector, type ReceivedSpan } from '../helpers/fake-otlp-collector.ts';
import { baseConfig, openaiDeployment, startTestService, TEST_KEY } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait-for.ts';

// USD per token: 1e-6 input, 2e-6 output.
const PRICE = { input_per_mtok: 1, output_per_mtok: 2 };
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

function gatewayConfig(upstream: FakeOpenAI, otlp: Record<string, unknown>, tracing: Record<string, unknown>) {
  return baseConfig({
    model_groups: [
      {
        name: 'g',
        routing: { retries: 2, bench_ms: 0, max_backoff_ms: 10 },
        deployments: [openaiDeployment('up', upstream.url, { price: PRICE })],
      },
    ],
    keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['g'] }],
    plugins: [{ use: 'auth' }, { use: 'router', config: { backoff_base_ms: 1 } }, { use: 'tracing', config: tracing }],
    tracing: { otlp: { flush_ms: 5, ...otlp } },
  });
}

async function setup(
  t: Test,
  otlp: (collector: FakeCollector) => Record<string, unknown> = () => ({}),
  tracing: Record<string, unknown> = {},
) {
  const upstream = await startFakeOpenAI();
  const collector = await startFakeCollector();
  t.teardown(() => upstream.close());
  t.teardown(() => collector.close());
  const svc = await startTestService(
    t,
    gatewayConfig(upstream, { endpoint: collector.endpoint, ...otlp(collector) }, tracing),
  );
  const client = new OpenAI({ baseURL: `${svc.gatewayUrl}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  return { upstream, collector, svc, client };
}

async function chat(client: OpenAI, headers: Record<string, string> = {}): Promise<string> {
  const { response } = await client.chat.completions
    .create(
      { model: 'g', messages: [{ role: 'user', content: 'Hello secret-words' }], temperature: 0.5, max_tokens: 50 },
      { headers },
    )
    .withResponse();
  return response.headers.get('x-svc-request-id')!;
}

const spansOfRequest = (collector: FakeCollector, id: string): ReceivedSpan[] => {
  const root = collector.spans.find((s) => s.attributes['svc.request_id'] === id);
  return root ? collector.spans.filter((s) => s.traceId === root.traceId) : [];
};

const otlpMetrics = async (adminUrl: string): Promise<any> =>
  ((await (await fetch(`${adminUrl}/metrics`)).json()) as any).telemetry.otlp;

t.test('protobuf export to a collector', async (t) => {
  const { upstream, collector, client, svc } = await setup(t, () => ({
    resource_attributes: { 'deployment.environment.name': 'test' },
  }));

  t.test(
    'a request with a retried attempt: a SERVER span with GenAI attributes, a CLIENT child per attempt',
    async (t) => {
      upstream.queue.push({ type: 'error', status: 503 });
      const id = await chat(client);
      const spans = await waitFor('the spans exported', () => {
        const found = spansOfRequest(collector, id);
        return found.length === 3 && found;
      });
      t.match(collector.exports[0].contentType, 'application/x-protobuf');
      const [root, first, second] = spans;
      t.equal(root.traceId, id.replaceAll('-', ''), 'the trace id is the request id');
      t.equal(root.name, 'chat g');
      t.equal(root.kind, SERVER);
      t.equal(root.parentSpanId, '');
      t.match(root.attributes, {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.system': 'openai',
        'gen_ai.request.model': 'g',
        'gen_ai.response.model': 'fake-model',
        'gen_ai.request.temperature': 0.5,
        'gen_ai.request.max_tokens': 50,
        'gen_ai.usage.input_tokens': 10,
        'gen_ai.usage.output_tokens': 5,
        'gen_ai.response.finish_reasons': ['stop'],
        'svc.model_group': 'g',
        'svc.deployment': 'up',
        'svc.status': 'completed',
        'svc.attempts': 2,
        'http.response.status_code': 200,
      });
      t.equal(root.attributes['svc.cost_usd'], 0.00002);
      t.equal(root.status.code, 0);
      t.match(root.resource, { 'service.name': 'svc-gateway', 'deployment.environment.name': 'test' });
      t.equal(root.scope, 'svc.gateway');

      for (const attempt of [first, second]) {
        t.equal(attempt.traceId, root.traceId);
        t.equal(attempt.parentSpanId, root.spanId, 'attempts are children of the request span');
        t.equal(attempt.kind, CLIENT);
        t.equal(attempt.name, 'chat model-up');
        t.equal(attempt.attributes['gen_ai.request.model'], 'model-up');
      }
      t.not(first.spanId, second.spanId);
      t.match(first.attributes, {
        'svc.attempt.number': 1,
        'svc.attempt.outcome': 'retryable',
        'http.response.status_code': 503,
        'error.type': 'retryable',
      });
      t.equal(first.status.code, ERROR);
      t.notOk('gen_ai.usage.input_tokens' in first.attributes, 'a failed attempt has no usage');
      t.match(second.attributes, {
        'svc.attempt.number': 2,
        'gen_ai.usage.input_tokens': 10,
        'gen_ai.usage.output_tokens': 5,
      });
      t.equal(second.attributes['svc.cost_usd'], 0.00002);
      t.notMatch(JSON.stringify(collector.spans), 'secret-words', 'message content is never exported');
    },
  );

  t.test('a caller traceparent: the request span joins the caller trace under its span', async (t) => {
    const id = await chat(client, { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` });
    const [request] = await waitFor('the joined spans', () => {
      const found = spansOfRequest(collector, id);
      return found.length === 2 && found;
    });
    t.equal(request.traceId, CALLER_TRACE);
    t.equal(request.parentSpanId, CALLER_SPAN);
  });

  // 503 is retried inside OTel's exporter; 500, which it gives up on, by the export's own backoff.
  t.test('a collector answering 503, then 500, then 200 gets the spans once, after the retries', async (t) => {
    const before = await otlpMetrics(svc.adminUrl);
    const exports = collector.exports.length;
    collector.answers.push(503, 500);
    const id = await chat(client);
    const metrics = await waitFor('the trace exported', async () => {
      const m = await otlpMetrics(svc.adminUrl);
      return m.traces_exported === before.traces_exported + 1 && m;
    });
    t.same(
      collector.exports.slice(exports).map((e) => e.spans),
      [2, 2, 2],
      'two failed exports, then the same spans accepted',
    );
    t.equal(spansOfRequest(collector, id).length, 2, 'received once');
    t.match(metrics, { queue_depth: 0, dropped: 0, collector: 'ok' });
    t.equal(metrics.export_failures, before.export_failures + 1, 'the 500 counted as a failed export');
  });

  t.test('a batch the collector refuses (400): dropped and counted, not sent again; the next ones go', async (t) => {
    const exports = collector.exports.length;
    collector.answers.push(400);
    await chat(client);
    await waitFor('the refused trace counted', async () => (await otlpMetrics(svc.adminUrl)).dropped === 1);
    const id = await chat(client);
    await waitFor('the next trace exported', () => spansOfRequest(collector, id).length === 2);
    t.equal(collector.exports.length - exports, 2, 'two exports: the refused one and the next trace');
  });
});

t.test('a stream with content recording off: response model, finish reason, usage, time to first chunk', async (t) => {
  const { upstream, collector, client } = await setup(t, undefined, { record_content: false });
  upstream.queue.push({ type: 'stream', pieces: ['a', 'b', 'c'] });
  const stream = await client.chat.completions.create({
    model: 'g',
    messages: [{ role: 'user', content: 'Hi' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  for await (const _ of stream);
  const root = await waitFor('the stream spans exported', () =>
    collector.spans.find((s) => s.attributes['gen_ai.request.stream'] === true),
  );
  const answer = { 'gen_ai.response.model': 'fake-model', 'gen_ai.response.finish_reasons': ['stop'] };
  t.match(root.attributes, { ...answer, 'gen_ai.usage.input_tokens': 12, 'gen_ai.usage.output_tokens': 3 });
  const [served] = collector.spans.filter((s) => s.parentSpanId === root.spanId);
  t.match(served.attributes, { ...answer, 'gen_ai.usage.output_tokens': 3, 'svc.attempt.outcome': 'ok' });
  t.type(served.attributes['gen_ai.response.time_to_first_chunk'], 'number');
});

t.test('a stream the provider cuts: the error spans carry what it consumed, estimated', async (t) => {
  const { upstream, collector, svc } = await setup(t);
  upstream.queue.push({ type: 'stream', pieces: ['Hello', ' from', ' a', ' cut'], cutAfter: 4, gapMs: 10 });
  const res = await fetch(`${svc.gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` },
    body: JSON.stringify({ model: 'g', messages: [{ role: 'user', content: 'Hello' }], stream: true }),
  });
  t.match(await res.text(), /upstream_stream_error/);
  const id = res.headers.get('x-svc-request-id')!;
  const [root, attempt] = await waitFor('the cut stream exported', () => {
    const spans = spansOfRequest(collector, id);
    return spans.length === 2 ? spans : undefined;
  });
  // The prompt estimate of one "Hello" message (9 tokens) and "Hello from a" streamed (3 tokens).
  const usage = { 'gen_ai.usage.input_tokens': 9, 'gen_ai.usage.output_tokens': 3 };
  t.match(root.attributes, { ...usage, 'svc.cost_usd': 9e-6 + 6e-6, 'error.type': 'upstream_stream_error' });
  t.equal(root.status.code, ERROR);
  t.match(attempt.attributes, { ...usage, 'svc.attempt.outcome': 'interrupted', 'error.type': 'interrupted' });
  t.equal(attempt.status.code, ERROR);
  t.match(attempt.status.message, /^stream interrupted: /);
});

t.test('OTLP/JSON, exported at shutdown: what is queued is sent before the service stops', async (t) => {
  // A flush interval longer than the test: only the shutdown sends the batch.
  const { collector, client, svc } = await setup(t, () => ({ protocol: 'http/json', flush_ms: 60_000 }));
  const id = await chat(client);
  await waitFor('the trace queued', async () => (await otlpMetrics(svc.adminUrl)).queue_depth === 1);
  t.equal(collector.exports.length, 0);
  await svc.service.stop();
  t.equal(collector.exports.length, 1);
  t.match(collector.exports[0].contentType, 'application/json');
  const [root, attempt] = spansOfRequest(collector, id);
  t.equal(root.traceId, id.replaceAll('-', ''));
  t.equal(attempt.parentSpanId, root.spanId);
  t.match(root.attributes, { 'gen_ai.usage.input_tokens': 10, 'gen_ai.response.finish_reasons': ['stop'] });
});

t.test('a collector that does not answer: requests are served, the queue fills, drops are counted', async (t) => {
  const { collector, client, svc } = await setup(t, () => ({ queue_size: 3, batch_size: 1, timeout_ms: 60_000 }));
  collector.answers.push('hold');
  for (let i = 0; i < 6; i++) await chat(client);
  // The first trace's export is held and keeps its place at the head of the queue: 3 queued, 3 dropped.
  const metrics = await waitFor('the drops counted', async () => {
    const m = await otlpMetrics(svc.adminUrl);
    return m.dropped === 3 && m;
  });
  t.match(metrics, { queue_depth: 3, queue_capacity: 3, traces_exported: 0 });
  t.equal(collector.exports.length, 1, 'one export in flight');
  const prometheus = await (await fetch(`${svc.adminUrl}/metrics?format=prometheus`)).text();
  t.match(prometheus, /^svc_otlp_traces_dropped_total 3$/m);
  t.match(prometheus, /^svc_otlp_export_queue_depth 3$/m);
  const all = (await (await fetch(`${svc.adminUrl}/metrics`)).json()) as any;
  t.equal(all.telemetry.traces.dropped, 0, 'the store lost nothing');

  collector.release();
  const after = await waitFor('the queue exported', async () => {
    const m = await otlpMetrics(svc.adminUrl);
    return m.traces_exported === 3 && m;
  });
  t.match(after, { queue_depth: 0, dropped: 3 });
});

t.test(
  'shutdown with an export the collector holds: bounded by the deadline, the queue counted as dropped',
  async (t) => {
    const collector = await startFakeCollector();
    t.teardown(() => collector.close());
    collector.answers.push('hold');
    const exporter = new OtlpExport(
      {
        endpoint: collector.endpoint,
        protocol: 'http/protobuf',
        headers: {},
        timeout_ms: 60_000,
        queue_size: 10,
        batch_size: 1,
        flush_ms: 1,
        service_name: 'svc-gateway',
        resource_attributes: {},
      },
      silentLogger,
    );
    exporter.start();
    const trace = (id: string) => ({
      trace: {
        projectId: 'p',
        id,
        status: 'completed' as const,
        startTime: new Date().toISOString(),
        source: 'gateway' as const,
      },
      observations: [],
    });
    exporter.enqueue(trace('a'));
    exporter.enqueue(trace('b'));
    await waitFor('the first export held', () => collector.exports.length === 1);
    await exporter.stop(50);
    t.match(exporter.snapshot(), { queue_depth: 0, dropped: 2, traces_exported: 0 });
    exporter.enqueue(trace('c'));
    t.equal(exporter.snapshot().dropped, 3, 'a trace after shutdown is counted too');
    collector.release();
    await exporter.stop(); // again: returns once the export loop has seen the answer
    t.equal(collector.spans.length, 1);
    t.equal(exporter.snapshot().traces_exported, 0, 'an export answered after shutdown gave up counts for nothing');
  },
);
