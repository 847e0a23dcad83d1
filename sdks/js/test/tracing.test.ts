// svc-sdk/tracing with OpenTelemetry's NodeTracerProvider against the real service's OTel intake: nested spans with
// trace and generation attributes read back through GET /api/public/traces/{id}; attributes propagated to child
// spans; export failures (no server, wrong key) that never throw and are counted and logged once; the bounded
// queue; the flush when a program ends without shutdown.
import { execFile } from 'node:child_process';
import { trace } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import t from 'tap';
import { waitFor } from '../../../test/helpers/wait-for.ts';
import { SvcConfigError } from '../src/index.ts';
import { SvcSpanProcessor, setGenerationAttributes, setTraceAttributes, withTraceAttributes } from '../src/tracing.ts';
import { deadUrl, readPublic, startSdkTestService, type SdkTestService } from './service.ts';

const svc = await startSdkTestService(t);
const processor = new SvcSpanProcessor(svc.options);
const provider = new NodeTracerProvider({ spanProcessors: [processor] });
provider.register();
t.teardown(() => provider.shutdown());
const tracer = provider.getTracer('svc-sdk-test', '1.2.3');

/** The trace once it holds `observations` observations (the intake stores spans before it answers; polled anyway). */
function storedTrace(s: SdkTestService, traceId: string, observations: number): Promise<any> {
  return waitFor(`trace ${traceId} with ${observations} observations`, async () => {
    const found = await readPublic(s, `/api/public/traces/${traceId}`);
    return found?.observations.length === observations ? found : undefined;
  });
}

/** A processor of its own (not registered) whose warnings are collected. */
function isolated(options: ConstructorParameters<typeof SvcSpanProcessor>[0]) {
  const warnings: string[] = [];
  const p = new SvcSpanProcessor({ ...options, flushOnExit: false, logger: { warn: (m) => warnings.push(m) } });
  const tp = new NodeTracerProvider({ spanProcessors: [p] });
  t.teardown(() => tp.shutdown());
  return { processor: p, tracer: tp.getTracer('isolated'), warnings };
}

t.test('nested spans with trace and generation attributes, read back from the public API', async (t) => {
  const completionStart = new Date(Date.now() + 5);
  const ids = await withTraceAttributes(
    { userId: 'user-42', sessionId: 'session-7', tags: ['sdk', 'js'], metadata: { team: 'support' } },
    () =>
      tracer.startActiveSpan('agent-run', async (root) => {
        setTraceAttributes(root, {
          name: 'support-agent',
          input: { question: 'Where is my order?' },
          output: 'It ships today.',
          metadata: { plan: 'pro' },
        });
        const retrieve = tracer.startActiveSpan('retrieve-orders', (span) => {
          span.setAttribute('orders.count', 2);
          span.end();
          return span.spanContext().spanId;
        });
        const llm = tracer.startActiveSpan('llm-call', (span) => {
          setGenerationAttributes(span, {
            model: 'gpt-4o-mini',
            modelParameters: { temperature: 0.1, max_tokens: 256 },
            usage: { input: 120, output: 35, total: 155 },
            cost: { input: 0.0012, output: 0.0035, total: 0.0047 },
            completionStartTime: completionStart,
            input: [{ role: 'user', content: 'Where is my order?' }],
            output: { role: 'assistant', content: 'It ships today.' },
          });
          span.end();
          return span.spanContext().spanId;
        });
        root.end();
        return { traceId: root.spanContext().traceId, root: root.spanContext().spanId, retrieve, llm };
      }),
  );
  await processor.forceFlush();
  const stored = await storedTrace(svc, ids.traceId, 3);
  t.match(stored, {
    id: ids.traceId,
    name: 'support-agent',
    userId: 'user-42',
    sessionId: 'session-7',
    input: { question: 'Where is my order?' },
    output: 'It ships today.',
  });
  t.same([...stored.tags].sort(), ['js', 'sdk']);
  t.match(stored.metadata, { team: 'support', plan: 'pro' });
  t.equal(stored.totalCost, 0.0047);

  const byId = Object.fromEntries(stored.observations.map((o: any) => [o.id, o]));
  t.match(byId[ids.root], { name: 'agent-run', type: 'SPAN', parentObservationId: null });
  t.match(byId[ids.retrieve], {
    name: 'retrieve-orders',
    parentObservationId: ids.root,
    metadata: { attributes: { 'orders.count': 2 }, scope: { name: 'svc-sdk-test', version: '1.2.3' } },
  });
  t.match(byId[ids.llm], {
    name: 'llm-call',
    type: 'GENERATION',
    parentObservationId: ids.root,
    model: 'gpt-4o-mini',
    modelParameters: { temperature: 0.1, max_tokens: 256 },
    completionStartTime: completionStart.toISOString(),
    input: [{ role: 'user', content: 'Where is my order?' }],
    output: { role: 'assistant', content: 'It ships today.' },
  });
  t.same(byId[ids.llm].usageDetails, { input: 120, output: 35, total: 155 });
  t.same(byId[ids.llm].costDetails, { input: 0.0012, output: 0.0035, total: 0.0047 });
});

t.test('withTraceAttributes inside an active span sets it on that span and on the spans started within', async (t) => {
  const ids = tracer.startActiveSpan('outer', (outer) => {
    const inner = withTraceAttributes({ userId: 'late-user' }, () => {
      t.equal(trace.getActiveSpan(), outer, 'the active span is unchanged');
      return withTraceAttributes({ sessionId: 'late-session', tags: ['nested'] }, () =>
        tracer.startActiveSpan('inner', (span) => {
          setGenerationAttributes(span, { model: 'demo', cost: 0.5 });
          span.end();
          return span.spanContext().spanId;
        }),
      );
    });
    outer.end();
    return { traceId: outer.spanContext().traceId, inner };
  });
  await processor.forceFlush();
  const stored = await storedTrace(svc, ids.traceId, 2);
  t.match(stored, { name: 'outer', userId: 'late-user', sessionId: 'late-session', tags: ['nested'], totalCost: 0.5 });
  const inner = stored.observations.find((o: any) => o.id === ids.inner);
  t.match(inner, { type: 'GENERATION', model: 'demo', costDetails: { total: 0.5 } });
});

t.test('no server: export fails without throwing, the spans are counted and logged once', async (t) => {
  const {
    processor: p,
    tracer: tr,
    warnings,
  } = isolated({ ...svc.options, baseUrl: await deadUrl(), exportTimeoutMillis: 300 });
  for (const name of ['a', 'b', 'c']) tr.startSpan(name).end();
  await p.forceFlush();
  t.equal(p.droppedSpans, 3);
  tr.startSpan('d').end();
  await p.forceFlush();
  t.equal(p.droppedSpans, 4, 'counted again');
  t.equal(warnings.length, 1, 'logged once');
  t.match(
    warnings[0],
    /^svc-sdk: 3 span\(s\) dropped: export to http:\/\/127\.0\.0\.1:\d+\/api\/public\/otel\/v1\/traces failed: connect ECONNREFUSED/,
  );
  await p.shutdown();
  tr.startSpan('after-shutdown').end();
  t.equal(p.droppedSpans, 4, 'spans after shutdown are ignored, not counted');
});

t.test('a wrong secret: the 401 is a failed export, counted', async (t) => {
  const { processor: p, tracer: tr, warnings } = isolated({ ...svc.options, secretKey: 'sk-svc-wrong' });
  tr.startSpan('refused').end();
  await p.forceFlush();
  t.equal(p.droppedSpans, 1);
  t.match(warnings, [/dropped: export .* failed: Unauthorized \(HTTP 401\)/]);
});

t.test(
  'the queue is bounded: spans beyond maxQueueSize while an export is in flight are dropped and counted',
  async (t) => {
    const {
      processor: p,
      tracer: tr,
      warnings,
    } = isolated({ ...svc.options, maxQueueSize: 2, maxExportBatchSize: 2, scheduledDelayMillis: 60_000 });
    const spans = ['q1', 'q2', 'q3', 'q4', 'q5'].map((name) => tr.startSpan(name));
    // q1 and q2 fill a batch, which goes to the exporter at once; q3 and q4 wait in the queue; q5 finds it full.
    for (const span of spans) span.end();
    t.equal(p.droppedSpans, 1);
    t.match(warnings, [/1 span\(s\) dropped: the export queue is full \(maxQueueSize 2\)/]);
    await p.forceFlush();
    t.equal(p.droppedSpans, 1, 'the queued spans were exported');
    for (const span of spans.slice(0, 4)) await storedTrace(svc, span.spanContext().traceId, 1);
    t.equal(
      await readPublic(svc, `/api/public/traces/${spans[4].spanContext().traceId}`),
      undefined,
      'the dropped span never arrived',
    );
  },
);

t.test('a program that ends without shutdown still delivers its spans', async (t) => {
  const env = {
    PATH: process.env.PATH,
    SVC_PUBLIC_KEY: svc.options.publicKey,
    SVC_SECRET_KEY: svc.options.secretKey,
    SVC_BASE_URL: svc.options.baseUrl,
  };
  const out = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      [new URL('./fixtures/exit-without-shutdown.ts', import.meta.url).pathname],
      { env, timeout: 60_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
    ),
  );
  const traceId = out.trim();
  t.match(traceId, /^[0-9a-f]{32}$/);
  t.match(await storedTrace(svc, traceId, 1), { name: 'short-lived-job', userId: 'exit-user' });
});

t.test('configuration errors name the variable', async (t) => {
  const saved = process.env.SVC_BASE_URL;
  delete process.env.SVC_BASE_URL;
  t.teardown(() => {
    if (saved !== undefined) process.env.SVC_BASE_URL = saved;
  });
  t.throws(
    () => new SvcSpanProcessor({ publicKey: svc.options.publicKey, secretKey: svc.options.secretKey }),
    new SvcConfigError(
      'SVC_BASE_URL',
      'is not set: set the SVC_BASE_URL environment variable or pass the baseUrl option',
    ),
  );
  t.throws(() => new SvcSpanProcessor({ ...svc.options, maxQueueSize: 0 }), {
    name: 'SvcConfigError',
    variable: 'maxQueueSize',
    message: 'maxQueueSize must be a whole number of 1 or more, not 0',
  });
  t.throws(() => new SvcSpanProcessor({ ...svc.options, exportTimeoutMillis: -5 }), {
    name: 'SvcConfigError',
    variable: 'exportTimeoutMillis',
  });
  t.equal(
    new SvcSpanProcessor({ ...svc.options, flushOnExit: false }).endpoint,
    `${svc.options.baseUrl}/api/public/otel/v1/traces`,
  );
});
