// A trace as the dashboard's trace route answers it, and its observations put in tree order with the gateway calls
// its spans made (joined by traceparent) and their attempts as rows of the same tree.
import type { TraceSummary } from './traces.ts';

/** An observation of the trace (span, generation, event, ...) or a row standing for a gateway call or attempt. */
export interface Span {
  id: string;
  name: string | null;
  parentId: string | null;
  startTime: string;
  endTime: string | null;
  completionStartTime?: string | null;
  /** The gateway's and REST spans' status (ok, error, completed, ...); null for ingested observations. */
  status: string | null;
  type: string;
  level?: string;
  statusMessage?: string | null;
  input?: unknown;
  output: unknown;
  attributes: Record<string, unknown>;
  model?: string | null;
  modelParameters?: Record<string, unknown> | null;
  usage?: Record<string, number>;
  costDetails?: Record<string, number>;
  cost?: number;
  promptName?: string | null;
  promptVersion?: number | null;
  /** Set on the row standing for a gateway call made from a span of this trace. */
  call?: GatewayCall;
}

export interface Attempt {
  spanId: string;
  d: string;
  o: string;
  /** The whole attempt, as long as its span (a stream to its end). */
  ms: number;
  /** A served stream: the time to its first chunk (what x-svc-attempts said). */
  firstChunkMs?: number;
  st?: number;
  why?: string;
  provider: string | null;
  model: string | null;
  usage?: Record<string, number>;
  costDetails?: Record<string, number>;
  cost?: number;
  startTime: string;
  endTime: string | null;
}

export interface Score {
  id: string;
  name: string;
  dataType: string;
  value: number | null;
  stringValue: string | null;
  comment: string | null;
  source: string;
  observationId: string | null;
  timestamp: string;
}

/** A gateway trace whose traceparent named a span of this trace. */
export interface GatewayCall extends TraceSummary {
  input: unknown;
  output: unknown;
  parentSpanId: string | null;
  /** The gateway's decisions: fallback, guardrail verdicts, redactions, cache, soft budget limits, estimated usage. */
  governance: Record<string, unknown>;
  attempts: Attempt[];
}

export interface Trace extends TraceSummary {
  input: unknown;
  output: unknown;
  metadata: Record<string, unknown>;
  parentTraceId: string | null;
  parentSpanId: string | null;
  spans: Span[];
  attempts: Attempt[];
  scores: Score[];
  gatewayCalls: GatewayCall[];
}

/** Each gateway call as a row under the span that made it, its provider attempts as rows under it. */
export function gatewayCallSpans(calls: GatewayCall[]): Span[] {
  return calls.flatMap((c) => {
    const callId = `gateway-call:${c.id}`;
    const call: Span = {
      id: callId,
      name: `gateway ${[c.modelGroup, c.deployment].filter(Boolean).join(' → ') || c.id}`,
      parentId: c.parentSpanId,
      startTime: c.startTime,
      endTime: c.endTime,
      status: c.status,
      type: 'GATEWAY',
      attributes: {},
      input: c.input,
      output: c.output,
      cost: c.cost,
      call: c,
    };
    const attempts = c.attempts.map((a): Span => ({
      id: `gateway-attempt:${a.spanId}`,
      name: `attempt ${a.d}`,
      parentId: callId,
      startTime: a.startTime,
      endTime: a.endTime,
      status: a.o === 'ok' ? 'ok' : 'error',
      statusMessage: a.why ?? null,
      type: 'GENERATION',
      attributes: a.provider ? { provider: a.provider } : {},
      output: null,
      model: a.model,
      usage: a.usage,
      cost: a.cost,
    }));
    return [call, ...attempts];
  });
}

/** Spans in tree order (parents before their children, siblings by start), with their depth. */
export function treeOrder(spans: Span[]): { span: Span; depth: number }[] {
  const ids = new Set(spans.map((s) => s.id));
  const children = new Map<string | null, Span[]>();
  for (const s of spans) {
    const parent = s.parentId && ids.has(s.parentId) ? s.parentId : null;
    const siblings = children.get(parent);
    if (siblings) siblings.push(s);
    else children.set(parent, [s]);
  }
  const started = new Map(spans.map((s) => [s.id, Date.parse(s.startTime)]));
  const out: { span: Span; depth: number }[] = [];
  const walk = (parent: string | null, depth: number) => {
    for (const s of (children.get(parent) ?? []).sort((a, b) => started.get(a.id)! - started.get(b.id)!)) {
      out.push({ span: s, depth });
      walk(s.id, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

export const endOf = (s: { endTime: string | null; startTime: string }) =>
  s.endTime ? Date.parse(s.endTime) : Date.parse(s.startTime);
