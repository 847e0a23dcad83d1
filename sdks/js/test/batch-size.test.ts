// SvcSpanProcessor's request size: batches cut to maxExportBatchBytes, a batch refused with 413 halved and sent again,
// and a single span refused as too large dropped (counted, logged) without its batch. Against a local OTLP intake that
// refuses bodies over a size, as a proxy or an older server does; the stored spans of a real service are in
// large-trace.test.ts.
import { createServer } from 'node:http';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import t, { type Test } from 'tap';
import { decodeRequest } from '../../../src/observability/ingestion/otel/otlp-decode.ts';
import { listenLocally } from '../../../test/helpers/local-server.ts';
import { SvcSpanProcessor } from '../src/tracing.ts';

/** An OTLP/HTTP intake answering 413 to bodies over `limit` bytes; records the span names of each accepted body. */
async function limitedIntake(t: Test, limit: number) {
  const accepted: string[][] = [];
  const refused: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (body.length > limit) {
        refused.push(body.length);
        res.writeHead(413, { 'content-type': 'application/json' }).end('{"error":"PayloadTooLargeError"}');
        return;
      }
      const request = decodeRequest(body, 'protobuf') as {
        resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[];
      };
      accepted.push(request.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((sp) => sp.name))));
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  const local = await listenLocally(server);
  t.teardown(() => local.close());
  return { url: local.url, accepted, refused };
}

function tracing(t: Test, baseUrl: string, extra: Partial<ConstructorParameters<typeof SvcSpanProcessor>[0]> = {}) {
  const warnings: string[] = [];
  const processor = new SvcSpanProcessor({
    publicKey: 'pk-test',
    secretKey: 'sk-test',
    baseUrl,
    flushOnExit: false,
    logger: { warn: (m) => warnings.push(m) },
    ...extra,
  });
  const provider = new NodeTracerProvider({ spanProcessors: [processor] });
  t.teardown(() => provider.shutdown());
  const tracer = provider.getTracer('batch-size');
  const span = (name: string, bytes: number) => {
    const s = tracer.startSpan(name);
    s.setAttribute('langfuse.observation.input', 'x'.repeat(bytes));
    s.end();
  };
  return { processor, span, warnings };
}

const names = (n: number, prefix = 's') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

t.test('a batch refused with 413 is halved until each part is taken; no span is lost', async (t) => {
  const intake = await limitedIntake(t, 300_000);
  const { processor, span } = tracing(t, intake.url);
  for (const name of names(40)) span(name, 30_000);
  await processor.forceFlush();
  t.ok(intake.refused.length > 0, 'the 1.2 MB batch was refused first');
  t.same(intake.accepted.flat().sort(), names(40).sort(), 'every span delivered once');
  t.ok(intake.accepted.every((part) => part.length <= 9));
  t.equal(processor.droppedSpans, 0);
});

t.test('maxExportBatchBytes cuts batches before they are sent', async (t) => {
  const intake = await limitedIntake(t, 300_000);
  const { processor, span } = tracing(t, intake.url, { maxExportBatchBytes: 100_000 });
  for (const name of names(40)) span(name, 30_000);
  await processor.forceFlush();
  t.same(intake.refused, [], 'nothing refused');
  t.same(intake.accepted.flat().sort(), names(40).sort());
  t.ok(intake.accepted.length >= 13, `${intake.accepted.length} requests of at most 3 spans`);
  t.throws(() => tracing(t, intake.url, { maxExportBatchBytes: 0 }), { name: 'SvcConfigError' });
});

t.test('a single span too large for the server is dropped and logged; its batch is delivered', async (t) => {
  const intake = await limitedIntake(t, 300_000);
  const { processor, span, warnings } = tracing(t, intake.url);
  for (const name of names(5, 'before')) span(name, 1_000);
  span('huge', 500_000);
  for (const name of names(5, 'after')) span(name, 1_000);
  await processor.forceFlush();
  t.same(intake.accepted.flat().sort(), [...names(5, 'after'), ...names(5, 'before')].sort());
  t.equal(processor.droppedSpans, 1);
  t.match(warnings.join('\n'), /span "huge" .* about 500\d{3} bytes\) was refused by .* as too large \(413\)/);
});
