// The OpenTelemetry project's own OTLP/HTTP protobuf exporter (what the Langfuse Python SDK uses) against the running
// service: spans with gen_ai.* attributes, user and session ids, nesting and an error status, sent plain and gzipped
// with a Basic auth header, and the stored rows read back through GET /api/public/traces/{id}. Both backends.
import { context, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import t from 'tap';
import { getObservation } from '../../src/platform/store/repos/observations.ts';
import { basicAuth, callAdmin, startPublicApiService } from '../helpers/public-api.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';

/** Spans of one agent run, collected in memory so each export's result can be checked. */
function recordRun(userId: string): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer('my-agent', '1.0.0');
  const child = (parent: Span, name: string, attributes: Record<string, string | number | string[]>) =>
    tracer.startSpan(name, { attributes }, trace.setSpan(context.active(), parent));

  const root = tracer.startSpan('invoke_agent support', {
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'user.id': userId,
      'session.id': 'conv-9',
      'langfuse.trace.tags': ['proto', 'python-like'],
    },
  });
  const chat = child(root, 'chat gpt-4o', {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.response.model': 'gpt-4o-2024-08-06',
    'gen_ai.request.max_tokens': 256,
    'gen_ai.usage.input_tokens': 120,
    'gen_ai.usage.output_tokens': 50,
    'gen_ai.usage.cache_read_input_tokens': 20,
    'gen_ai.usage.reasoning_tokens': 15,
    'gen_ai.input.messages': JSON.stringify([
      { role: 'user', parts: [{ type: 'text', content: 'reset my password' }] },
    ]),
    'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'be brief' }]),
  });
  const tool = child(chat, 'execute_tool lookup_user', {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'lookup_user',
    'gen_ai.tool.call.arguments': '{"email":"a@b.c"}',
  });
  tool.setStatus({ code: SpanStatusCode.ERROR, message: 'user not found' });
  tool.end();
  chat.end();
  const embed = child(root, 'embeddings', {
    'gen_ai.operation.name': 'embeddings',
    'gen_ai.request.model': 'text-embedding-3-small',
    'gen_ai.usage.input_tokens': 7,
  });
  embed.end();
  root.end();
  return memory.getFinishedSpans();
}

function exportSpans(exporter: OTLPTraceExporter, spans: ReadableSpan[]): Promise<{ code: number; error?: Error }> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

for (const backend of STORE_BACKENDS) {
  t.test(`OTLP protobuf exporter on ${backend}`, async (t) => {
    const { s, key } = await startPublicApiService(t, backend);
    const url = `${s.adminUrl}/api/public/otel/v1/traces`;

    for (const compression of ['none', 'gzip'] as const) {
      t.test(`compression ${compression}`, async (t) => {
        const exporter = new OTLPTraceExporter({
          url,
          headers: { Authorization: basicAuth(key) },
          compression: compression as never,
        });
        t.teardown(() => exporter.shutdown());
        const spans = recordRun(`user-${compression}`);
        const result = await exportSpans(exporter, spans);
        t.equal(result.code, 0, `the exporter reports success${result.error ? `: ${result.error.message}` : ''}`);

        const span = (name: string) => spans.find((x) => x.name === name)!;
        const traceId = span('invoke_agent support').spanContext().traceId;
        const r = await callAdmin(s, 'GET', `/api/public/traces/${traceId}`, basicAuth(key));
        t.equal(r.status, 200);
        t.match(r.body, {
          name: 'invoke_agent support',
          userId: `user-${compression}`,
          sessionId: 'conv-9',
          environment: 'default',
        });
        t.same([...r.body.tags].sort(), ['proto', 'python-like']);
        const byId = Object.fromEntries(r.body.observations.map((o: any) => [o.id, o]));
        const idOf = (name: string) => span(name).spanContext().spanId;
        t.equal(r.body.observations.length, 4);
        t.match(byId[idOf('invoke_agent support')], { type: 'AGENT', parentObservationId: null });
        const chat = byId[idOf('chat gpt-4o')];
        t.match(chat, {
          type: 'GENERATION',
          parentObservationId: idOf('invoke_agent support'),
          model: 'gpt-4o-2024-08-06',
          modelParameters: { max_tokens: 256 },
          input: [
            { role: 'system', content: [{ type: 'text', content: 'be brief' }] },
            { role: 'user', parts: [{ type: 'text', content: 'reset my password' }] },
          ],
        });
        t.same(
          chat.usageDetails,
          { input: 100, input_cached_tokens: 20, output: 35, output_reasoning_tokens: 15, total: 170 },
          'exclusive buckets',
        );
        t.match(byId[idOf('execute_tool lookup_user')], {
          type: 'TOOL',
          name: 'lookup_user',
          parentObservationId: idOf('chat gpt-4o'),
          level: 'ERROR',
          statusMessage: 'user not found',
          input: { email: 'a@b.c' },
        });
        t.match(byId[idOf('embeddings')], {
          type: 'EMBEDDING',
          model: 'text-embedding-3-small',
          usageDetails: { input: 7, total: 7 },
        });
        const stored = await getObservation(s.service.db, 'default', idOf('chat gpt-4o'));
        t.match(stored!.attributes, {
          scope: { name: 'my-agent', version: '1.0.0' },
          attributes: { 'gen_ai.request.model': 'gpt-4o' },
        });
      });
    }

    t.test('a wrong secret is a failed export', async (t) => {
      const exporter = new OTLPTraceExporter({
        url,
        headers: { Authorization: basicAuth({ publicKey: key.publicKey, secretKey: 'sk-wrong' }) },
      });
      t.teardown(() => exporter.shutdown());
      const result = await exportSpans(exporter, recordRun('nobody'));
      t.equal(result.code, 1);
      t.match(result.error?.message, /401|Unauthorized/);
    });
  });
}
