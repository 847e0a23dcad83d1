// svc-sdk/tracing: OpenTelemetry tracing to svc's intake, and helpers for svc's trace and generation attributes.
export { SvcSpanProcessor, type SvcSpanProcessorOptions } from './tracing/span-processor.ts';
export {
  setGenerationAttributes,
  setTraceAttributes,
  withTraceAttributes,
  type GenerationAttributes,
  type TraceAttributes,
} from './tracing/attributes.ts';
export type { PropagatedAttributes } from './trace-context.ts';
