// The trace recorder handed to plugins as services.traces: it builds a finished request's trace (gateway-trace.ts)
// with the caller's headers and the configured deployments, and hands it to the trace writer.
import type { DeploymentConfig, GatewayConfig } from '../../platform/config/types.ts';
import type { TraceRecorder } from '../../plugin-api/services.ts';
import { callerContext } from './caller-context.ts';
import { gatewayTrace } from './gateway-trace.ts';
import type { TraceSink } from './trace-writer.ts';

export function traceRecorder(sink: TraceSink, config: GatewayConfig): TraceRecorder {
  const deployments = new Map<string, DeploymentConfig>();
  for (const g of config.model_groups) for (const d of g.deployments) deployments.set(d.id, d);
  return {
    record(ctx, { recordContent, maxOutputChars, now }) {
      // The stream's chunks as ctx.streamed gathered them: none when no stream was answered.
      const streamed = ctx.streamed?.chunks ? ctx.streamed : undefined;
      sink.enqueue(
        gatewayTrace(ctx, {
          recordContent,
          now,
          caller: callerContext(ctx.headers),
          streamOutput: recordContent ? streamed?.message(maxOutputChars) : undefined,
          streamFacts: streamed,
          deployments,
        }),
      );
    },
  };
}
