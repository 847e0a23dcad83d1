// Trace attributes carried in the OpenTelemetry context by `withTraceAttributes`: SvcSpanProcessor copies them onto
// each span started in that context, and the gateway link sends the user and session ids as headers. A context key,
// not W3C baggage, so the ids do not travel to every service the program calls.
import { context, createContextKey, type Context } from '@opentelemetry/api';

export interface PropagatedAttributes {
  userId?: string;
  sessionId?: string;
  tags?: string[];
  metadata?: Record<string, unknown>;
}

// createContextKey uses Symbol.for, so separately bundled copies of this module agree on the key.
const KEY = createContextKey('svc-sdk.trace-attributes');

export function propagatedAttributes(ctx: Context = context.active()): PropagatedAttributes {
  return (ctx.getValue(KEY) as PropagatedAttributes | undefined) ?? {};
}

/** The context with these attributes over the ones it carries (tags added, metadata merged). */
export function withPropagated(ctx: Context, fields: PropagatedAttributes): Context {
  const outer = propagatedAttributes(ctx);
  const merged: PropagatedAttributes = {
    userId: fields.userId ?? outer.userId,
    sessionId: fields.sessionId ?? outer.sessionId,
    tags: fields.tags || outer.tags ? [...new Set([...(outer.tags ?? []), ...(fields.tags ?? [])])] : undefined,
    metadata: fields.metadata || outer.metadata ? { ...outer.metadata, ...fields.metadata } : undefined,
  };
  return ctx.setValue(KEY, merged);
}
