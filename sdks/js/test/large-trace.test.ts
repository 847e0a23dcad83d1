// One trace of 200 spans of 30 KB each (6 MB of text) through SvcSpanProcessor into the real service: all 201
// observations stored. The processor sends it in requests of at most 4 MiB; the intake would also take it whole.
import { randomBytes } from 'node:crypto';
import { context, trace } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import t from 'tap';
import { waitFor } from '../../../test/helpers/wait-for.ts';
import { SvcSpanProcessor } from '../src/tracing.ts';
import { readPublic, startSdkTestService } from './service.ts';

t.test('a trace of 200 spans of 30 KB is stored whole', async (t) => {
  const svc = await startSdkTestService(t);
  const processor = new SvcSpanProcessor({ ...svc.options, flushOnExit: false });
  const provider = new NodeTracerProvider({ spanProcessors: [processor] });
  t.teardown(() => provider.shutdown());
  const tracer = provider.getTracer('large-trace');
  const root = tracer.startSpan('agent-run');
  const parent = trace.setSpan(context.active(), root);
  for (let i = 0; i < 200; i++) {
    const step = tracer.startSpan(`step-${i}`, {}, parent);
    step.setAttribute('langfuse.observation.input', randomBytes(15_000).toString('hex'));
    step.end();
  }
  root.end();
  const traceId = root.spanContext().traceId;
  await processor.forceFlush();
  t.equal(processor.droppedSpans, 0);
  const stored = await waitFor('the whole trace', async () => {
    const found = await readPublic(svc, `/api/public/traces/${traceId}`);
    return found?.observations.length === 201 ? found : undefined;
  });
  const steps = stored.observations.filter((o: { name: string }) => o.name.startsWith('step-'));
  t.equal(steps.length, 200);
  t.ok(steps.every((o: { input: string }) => o.input.length === 30_000));
});
