// One trace: its spans as a waterfall (click one for its details) with the gateway calls its spans made in place,
// input and output, the gateway's attempts, scores.
import { get, inProject } from '../api.ts';
import { h, replace } from '../dom.ts';
import { asText, dateTime, ms, num, usd } from '../format.ts';
import { href, seg } from '../router.ts';
import { badge, empty, pageHeader, section, table } from '../ui.ts';
import type { ViewContext } from '../view.ts';
import { statusBadge, type TraceSummary } from './traces.ts';

interface Span {
  id: string;
  name: string | null;
  parentId: string | null;
  startTime: string;
  endTime: string | null;
  status: string;
  type: string;
  level?: string;
  statusMessage?: string | null;
  attributes: Record<string, unknown>;
  output: unknown;
  model?: string | null;
  usage?: Record<string, number>;
  cost?: number;
  /** Set on the row standing for a gateway call made from a span of this trace. */
  call?: GatewayCall;
}

interface Attempt {
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
  startTime: string;
  endTime: string | null;
}

interface Score {
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
interface GatewayCall extends TraceSummary {
  parentSpanId: string | null;
  attempts: Attempt[];
}

interface Trace extends TraceSummary {
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
function gatewayCallSpans(calls: GatewayCall[]): Span[] {
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
      output: null,
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
      attributes: {},
      output: null,
      model: a.model,
    }));
    return [call, ...attempts];
  });
}

/** Spans in tree order (parents before their children, siblings by start), with their depth. */
function treeOrder(spans: Span[]): { span: Span; depth: number }[] {
  const ids = new Set(spans.map((s) => s.id));
  const children = new Map<string | null, Span[]>();
  for (const s of spans) {
    const parent = s.parentId && ids.has(s.parentId) ? s.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), s]);
  }
  const out: { span: Span; depth: number }[] = [];
  const walk = (parent: string | null, depth: number) => {
    for (const s of (children.get(parent) ?? []).sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime))) {
      out.push({ span: s, depth });
      walk(s.id, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

const attemptTime = (a: Attempt) =>
  a.firstChunkMs === undefined ? ms(a.ms) : `${ms(a.ms)} (first chunk ${ms(a.firstChunkMs)})`;

function waterfall(trace: Trace, spans: Span[], details: HTMLElement, project: string): HTMLElement {
  const start = Math.min(Date.parse(trace.startTime), ...spans.map((s) => Date.parse(s.startTime)));
  const endOf = (s: { endTime: string | null; startTime: string }) =>
    s.endTime ? Date.parse(s.endTime) : Date.parse(s.startTime);
  const end = Math.max(trace.endTime ? Date.parse(trace.endTime) : start, ...spans.map(endOf));
  const total = Math.max(1, end - start);
  const rows = treeOrder(spans).map(({ span, depth }) => {
    const left = ((Date.parse(span.startTime) - start) / total) * 100;
    const width = ((endOf(span) - Date.parse(span.startTime)) / total) * 100;
    const kind =
      span.status === 'error' || span.level === 'ERROR'
        ? 'error'
        : span.type === 'GENERATION'
          ? 'generation'
          : span.type === 'GATEWAY'
            ? 'gateway'
            : '';
    const row = h(
      'div',
      {
        class: 'wf-row',
        role: 'button',
        tabindex: 0,
        'data-testid': 'waterfall-row',
        'data-span': span.id,
        onclick: () => {
          for (const r of row.parentElement!.children) r.classList.remove('selected');
          row.classList.add('selected');
          replace(details, span.call ? gatewayCallDetails(span.call, project) : spanDetails(span));
        },
      },
      h(
        'div',
        { class: 'wf-name', style: `padding-left: ${depth * 14}px`, title: span.name ?? span.id },
        span.name ?? span.id,
        span.type === 'GENERATION' ? h('span', { class: 'hint' }, ` ${span.model ?? ''}`) : null,
      ),
      h(
        'div',
        { class: 'wf-track' },
        h('div', { class: `wf-bar ${kind}`, style: `left: ${left.toFixed(2)}%; width: ${width.toFixed(2)}%` }),
      ),
      h('div', { class: 'wf-dur' }, span.endTime ? ms(endOf(span) - Date.parse(span.startTime)) : 'running'),
    );
    return row;
  });
  return h('div', { class: 'waterfall', 'data-testid': 'waterfall' }, rows);
}

function spanDetails(s: Span): HTMLElement {
  return h(
    'div',
    { 'data-testid': 'span-details' },
    h('h3', null, s.name ?? s.id),
    h(
      'dl',
      { class: 'facts' },
      h('dt', null, 'Type'),
      h('dd', null, s.type),
      h('dt', null, 'Status'),
      h('dd', null, statusBadge(s.status), s.statusMessage ? ` ${s.statusMessage}` : ''),
      h('dt', null, 'Start'),
      h('dd', null, dateTime(s.startTime)),
      h('dt', null, 'End'),
      h('dd', null, dateTime(s.endTime)),
      s.model ? [h('dt', null, 'Model'), h('dd', null, s.model)] : null,
      s.usage
        ? [
            h('dt', null, 'Usage'),
            h(
              'dd',
              null,
              Object.entries(s.usage)
                .map(([k, v]) => `${k} ${num(v)}`)
                .join(', ') || '–',
            ),
          ]
        : null,
      s.cost !== undefined ? [h('dt', null, 'Cost'), h('dd', null, usd(s.cost))] : null,
    ),
    Object.keys(s.attributes ?? {}).length
      ? [h('h3', null, 'Attributes'), h('pre', { class: 'io' }, asText(s.attributes))]
      : null,
    s.output !== null && s.output !== undefined
      ? [h('h3', null, 'Output'), h('pre', { class: 'io' }, asText(s.output))]
      : null,
  );
}

function gatewayCallDetails(c: GatewayCall, project: string): HTMLElement {
  return h(
    'div',
    { 'data-testid': 'gateway-call-details' },
    h('h3', null, 'Gateway call'),
    h(
      'dl',
      { class: 'facts' },
      h('dt', null, 'Trace'),
      h('dd', null, h('a', { href: href(`/p/${seg(project)}/traces/${seg(c.id)}`), class: 'mono' }, c.id)),
      h('dt', null, 'Status'),
      h('dd', null, statusBadge(c.status, c.errorCode), c.statusCode === null ? '' : ` HTTP ${c.statusCode}`),
      h('dt', null, 'Model group'),
      h('dd', null, [c.modelGroup, c.deployment].filter(Boolean).join(' → ') || '–'),
      h('dt', null, 'Duration'),
      h('dd', null, ms(c.duration)),
      h('dt', null, 'Tokens'),
      h('dd', null, num(c.tokens)),
      h('dt', null, 'Cost'),
      h('dd', { 'data-testid': 'gateway-call-cost' }, usd(c.cost)),
      h('dt', null, 'Attempts'),
      h('dd', null, c.attempts.map((a) => `${a.d} ${a.o} ${attemptTime(a)}`).join(', ') || '–'),
    ),
  );
}

function outcome(o: string): HTMLElement {
  return badge(o, o === 'success' || o === 'ok' ? 'ok' : 'bad');
}

export async function tracePage(ctx: ViewContext): Promise<Node> {
  const trace = await get<Trace>(inProject(ctx.project, `/traces/${encodeURIComponent(ctx.params.id!)}`));
  const spans = [...trace.spans, ...gatewayCallSpans(trace.gatewayCalls)];
  const details = h('div', { class: 'span-details' }, h('p', { class: 'hint' }, 'Select a span for its details.'));
  return h(
    'div',
    { class: 'page', 'data-testid': 'trace-page' },
    h(
      'p',
      { class: 'crumbs' },
      h('a', { href: href(`/p/${seg(ctx.project)}/traces`) }, 'Traces'),
      ' › ',
      h('span', { class: 'mono' }, trace.id),
    ),
    pageHeader(trace.name ?? trace.id, statusBadge(trace.status, trace.errorCode)),
    h(
      'div',
      { class: 'stats' },
      statBox('Started', dateTime(trace.startTime)),
      statBox('Duration', ms(trace.duration)),
      statBox('Tokens', num(trace.tokens), 'trace-tokens'),
      statBox('Cost', usd(trace.cost), 'trace-cost'),
      statBox('Agent', trace.agentName ?? trace.agentId ?? '–'),
      statBox('Model group', [trace.modelGroup, trace.deployment].filter(Boolean).join(' → ') || '–'),
      statBox('HTTP status', trace.statusCode === null ? '–' : String(trace.statusCode)),
      statBox('Cache', trace.cacheHit === null ? '–' : trace.cacheHit ? 'hit' : 'miss'),
      trace.gatewayCalls.length
        ? statBox(
            'Gateway calls',
            `${trace.gatewayCalls.length} · ${usd(trace.gatewayCalls.reduce((sum, c) => sum + c.cost, 0))}`,
            'gateway-calls',
          )
        : null,
    ),
    trace.parentTraceId
      ? h(
          'p',
          { class: 'hint', 'data-testid': 'called-from' },
          'Called from ',
          h(
            'a',
            { href: href(`/p/${seg(ctx.project)}/traces/${seg(trace.parentTraceId)}`), class: 'mono' },
            trace.parentTraceId,
          ),
        )
      : null,
    section(
      'Spans',
      spans.length === 0
        ? empty('This trace has no spans.')
        : h('div', { class: 'spans-layout' }, waterfall(trace, spans, details, ctx.project), details),
    ),
    section(
      'Attempts',
      table(
        trace.attempts,
        [
          { title: 'Deployment', cell: (a) => h('code', null, a.d) },
          { title: 'Provider', cell: (a) => a.provider ?? '–' },
          { title: 'Model', cell: (a) => a.model ?? '–' },
          { title: 'Outcome', cell: (a) => outcome(a.o) },
          { title: 'Provider status', cell: (a) => (a.st === undefined ? '–' : String(a.st)), class: 'num' },
          { title: 'Time', cell: attemptTime, class: 'num' },
          { title: 'Why', cell: (a) => a.why ?? '' },
        ],
        { testid: 'attempts', emptyText: 'No provider attempts (answered before routing, or not a gateway trace).' },
      ),
    ),
    h(
      'div',
      { class: 'grid-2' },
      section('Input', h('pre', { class: 'io', 'data-testid': 'trace-input' }, asText(trace.input) || '–')),
      section('Output', h('pre', { class: 'io', 'data-testid': 'trace-output' }, asText(trace.output) || '–')),
    ),
    section(
      'Scores',
      table(
        trace.scores,
        [
          { title: 'Name', cell: (s) => s.name },
          { title: 'Value', cell: (s) => s.stringValue ?? (s.value === null ? '–' : String(s.value)), class: 'num' },
          { title: 'Type', cell: (s) => s.dataType },
          { title: 'Source', cell: (s) => s.source },
          { title: 'Comment', cell: (s) => s.comment ?? '' },
          { title: 'At', cell: (s) => dateTime(s.timestamp) },
        ],
        { testid: 'scores', emptyText: 'No scores.' },
      ),
    ),
    Object.keys(trace.tags ?? {}).length || Object.keys(trace.metadata ?? {}).length
      ? section(
          'Tags and metadata',
          h(
            'pre',
            { class: 'io' },
            asText({ tags: trace.tags, metadata: trace.metadata, userId: trace.userId, sessionId: trace.sessionId }),
          ),
        )
      : null,
  );
}

function statBox(label: string, value: string, testid?: string): HTMLElement {
  return h(
    'div',
    { class: 'stat' },
    h('div', { class: 'stat-label' }, label),
    h('div', { class: 'stat-value small', 'data-testid': testid }, value),
  );
}
