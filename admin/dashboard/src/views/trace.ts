// One trace, whatever sent it (an SDK, OTel, ingestion, the gateway): its observation tree on a timeline, the gateway
// calls its spans made (joined by traceparent) in place with their attempts; a selected node's input, output, metadata,
// model, usage and cost per part, level and timings; the trace's user, session and tags as links, input and output,
// scores. The gateway's own cards (agent, model group, HTTP status, cache) only on a gateway trace.
import { get, inProject } from '../api.ts';
import { h, replace, type Child } from '../dom.ts';
import { asText, dateTime, ms, num, usd } from '../format.ts';
import { href, seg } from '../router.ts';
import { badge, empty, pageHeader, section, table } from '../ui.ts';
import type { ViewContext } from '../view.ts';
import { statusBadge, type TraceSummary } from './traces.ts';

/** An observation of the trace (span, generation, event, ...) or a row standing for a gateway call or attempt. */
interface Span {
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
  usage?: Record<string, number>;
  cost?: number;
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
  input: unknown;
  output: unknown;
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

const endOf = (s: { endTime: string | null; startTime: string }) =>
  s.endTime ? Date.parse(s.endTime) : Date.parse(s.startTime);

/** An observation's pill: its level when it says more than DEFAULT, else its status, else DEFAULT; never empty. */
function spanPill(s: Span): HTMLElement {
  const level = s.level ?? 'DEFAULT';
  if (level === 'ERROR') return badge('ERROR', 'bad');
  if (level === 'WARNING') return badge('WARNING', 'warn');
  if (level === 'DEFAULT' && s.status) return statusBadge(s.status);
  return badge(level);
}

function barKind(s: Span): string {
  if (s.status === 'error' || s.level === 'ERROR') return 'error';
  if (s.level === 'WARNING') return 'warning';
  if (s.type === 'GATEWAY') return 'gateway';
  return s.type === 'GENERATION' ? 'generation' : '';
}

/** Tick labels over the timeline: its start, middle and end, relative to the trace's start. */
function timeAxis(total: number): HTMLElement {
  return h(
    'div',
    { class: 'wf-row wf-axis' },
    h('div', { class: 'hint' }, 'Observation'),
    h(
      'div',
      { class: 'wf-ticks' },
      [0, 0.5, 1].map((f) => h('span', { style: `left: ${f * 100}%` }, ms(f * total))),
    ),
    h('div', { class: 'hint wf-dur' }, 'Duration'),
  );
}

function waterfall(trace: Trace, spans: Span[], details: HTMLElement, project: string): HTMLElement {
  const start = Math.min(Date.parse(trace.startTime), ...spans.map((s) => Date.parse(s.startTime)));
  const end = Math.max(trace.endTime ? Date.parse(trace.endTime) : start, ...spans.map(endOf));
  const total = Math.max(1, end - start);
  const rows = treeOrder(spans).map(({ span, depth }) => {
    const offset = Date.parse(span.startTime) - start;
    const length = endOf(span) - Date.parse(span.startTime);
    const select = () => {
      for (const r of row.parentElement!.children) r.classList.remove('selected');
      row.classList.add('selected');
      replace(details, span.call ? gatewayCallDetails(span.call, project) : spanDetails(span));
    };
    const row = h(
      'div',
      {
        class: 'wf-row',
        role: 'button',
        tabindex: 0,
        'data-testid': 'waterfall-row',
        'data-span': span.id,
        onclick: select,
        onkeydown: (e: KeyboardEvent) => {
          if (e.key !== 'Enter' && e.key !== ' ') return;
          e.preventDefault();
          select();
        },
      },
      h(
        'div',
        { class: 'wf-name', style: `padding-left: ${depth * 14}px`, title: span.name ?? span.id },
        h('span', { class: `wf-type ${span.type.toLowerCase()}` }, span.type),
        ' ',
        span.name ?? span.id,
        span.model ? h('span', { class: 'hint' }, ` ${span.model}`) : null,
      ),
      h(
        'div',
        { class: 'wf-track' },
        h('div', {
          class: `wf-bar ${barKind(span)}`,
          style: `left: ${((offset / total) * 100).toFixed(2)}%; width: ${((length / total) * 100).toFixed(2)}%`,
          title: `starts at +${ms(offset)}, lasts ${ms(length)}`,
        }),
      ),
      h('div', { class: 'wf-dur' }, span.endTime ? ms(length) : 'running'),
    );
    return row;
  });
  return h('div', { class: 'waterfall', 'data-testid': 'waterfall' }, timeAxis(total), rows);
}

/** `input 12 · output 30 · total 42`: each part of a usage or cost record, the total last. */
const parts = (record: Record<string, number>, format: (v: number) => string) =>
  Object.entries(record)
    .sort(([a], [b]) => Number(a === 'total') - Number(b === 'total'))
    .map(([k, v]) => `${k} ${format(v)}`)
    .join(' · ');

const fact = (label: string, value: Child, testid?: string) => [
  h('dt', null, label),
  h('dd', { 'data-testid': testid }, value),
];

/** A JSON or text block with its heading, left out when there is nothing to show. */
function block(title: string, value: unknown, testid: string): Child {
  const empty = value === null || value === undefined || (typeof value === 'object' && !Object.keys(value).length);
  return empty ? null : [h('h3', null, title), h('pre', { class: 'io', 'data-testid': testid }, asText(value))];
}

function spanDetails(s: Span): HTMLElement {
  const started = Date.parse(s.startTime);
  return h(
    'div',
    { 'data-testid': 'span-details' },
    h('h3', null, s.name ?? s.id, ' ', h('span', { 'data-testid': 'span-pill' }, spanPill(s))),
    h(
      'dl',
      { class: 'facts' },
      fact('Type', s.type),
      fact('Level', s.level ?? '–'),
      s.status ? fact('Status', s.status) : null,
      s.statusMessage ? fact('Status message', s.statusMessage, 'span-status-message') : null,
      fact('Start', dateTime(s.startTime)),
      fact('End', dateTime(s.endTime)),
      fact('Duration', s.endTime ? ms(endOf(s) - started) : 'running'),
      s.completionStartTime ? fact('First token', ms(Date.parse(s.completionStartTime) - started)) : null,
      s.model ? fact('Model', s.model, 'span-model') : null,
      s.promptName ? fact('Prompt', `${s.promptName}${s.promptVersion ? ` v${s.promptVersion}` : ''}`) : null,
      s.usage && Object.keys(s.usage).length ? fact('Usage', parts(s.usage, num), 'span-usage') : null,
      s.costDetails && Object.keys(s.costDetails).length
        ? fact('Cost', parts(s.costDetails, usd), 'span-cost')
        : s.cost
          ? fact('Cost', usd(s.cost), 'span-cost')
          : null,
    ),
    block('Input', s.input, 'span-input'),
    block('Output', s.output, 'span-output'),
    block('Model parameters', s.modelParameters, 'span-model-parameters'),
    block('Metadata', s.attributes, 'span-metadata'),
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
      fact('Trace', h('a', { href: href(`/p/${seg(project)}/traces/${seg(c.id)}`), class: 'mono' }, c.id)),
      fact('Status', [statusBadge(c.status, c.errorCode), c.statusCode === null ? '' : ` HTTP ${c.statusCode}`]),
      fact('Model group', [c.modelGroup, c.deployment].filter(Boolean).join(' → ') || '–'),
      fact('Duration', ms(c.duration)),
      fact('Tokens', num(c.tokens)),
      fact('Cost', usd(c.cost), 'gateway-call-cost'),
      fact('Cache', c.cacheHit === null ? '–' : c.cacheHit ? 'hit' : 'miss'),
      fact('Attempts', c.attempts.map((a) => `${a.d} ${a.o} ${attemptTime(a)}`).join(', ') || '–'),
    ),
    block('Input', c.input, 'span-input'),
    block('Output', c.output, 'span-output'),
  );
}

function outcome(o: string): HTMLElement {
  return badge(o, o === 'success' || o === 'ok' ? 'ok' : 'bad');
}

/** A tag as its list shows it: a Langfuse tag (stored with an empty value) is its name, a svc tag is key:value. */
const tagText = ([k, v]: [string, string]) => (v === '' ? k : `${k}:${v}`);

/** Who and what the trace is about: source, user, session and tags, each a link to the traces sharing it. */
function traceFacts(trace: Trace, project: string): HTMLElement {
  const list = (query: Record<string, string>) => href(`/p/${seg(project)}/traces`, query);
  const tags = Object.entries(trace.tags ?? {});
  return h(
    'dl',
    { class: 'facts trace-facts', 'data-testid': 'trace-facts' },
    fact('Source', trace.source ?? '–'),
    fact(
      'User',
      trace.userId ? h('a', { href: list({ userId: trace.userId }), 'data-testid': 'trace-user' }, trace.userId) : '–',
    ),
    fact(
      'Session',
      trace.sessionId
        ? h('a', { href: list({ sessionId: trace.sessionId }), 'data-testid': 'trace-session' }, trace.sessionId)
        : '–',
    ),
    fact(
      'Tags',
      tags.length
        ? h(
            'ul',
            { class: 'chips', 'data-testid': 'trace-tags' },
            tags.map((t) => h('li', null, h('a', { class: 'chip', href: list({ tag: tagText(t) }) }, tagText(t)))),
          )
        : '–',
    ),
  );
}

export async function tracePage(ctx: ViewContext): Promise<Node> {
  const trace = await get<Trace>(inProject(ctx.project, `/traces/${encodeURIComponent(ctx.params.id!)}`));
  const spans = [...trace.spans, ...gatewayCallSpans(trace.gatewayCalls)];
  const isGateway = trace.source === 'gateway';
  // An agent trace's attempts are those of the gateway calls its spans made.
  const attempts = isGateway ? trace.attempts : trace.gatewayCalls.flatMap((c) => c.attempts);
  const details = h(
    'div',
    { class: 'span-details' },
    h('p', { class: 'hint' }, 'Select an observation for its details.'),
  );
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
      { class: 'stats', 'data-testid': 'trace-cards' },
      statBox('Started', dateTime(trace.startTime)),
      statBox('Duration', ms(trace.duration)),
      statBox('Tokens', num(trace.tokens), 'trace-tokens'),
      statBox('Cost', usd(trace.cost), 'trace-cost'),
      isGateway
        ? [
            statBox('Agent', trace.agentName ?? trace.agentId ?? '–'),
            statBox('Model group', [trace.modelGroup, trace.deployment].filter(Boolean).join(' → ') || '–'),
            statBox('HTTP status', trace.statusCode === null ? '–' : String(trace.statusCode)),
            statBox('Cache', trace.cacheHit === null ? '–' : trace.cacheHit ? 'hit' : 'miss'),
          ]
        : statBox('Observations', num(trace.spans.length), 'trace-observations'),
      trace.gatewayCalls.length
        ? statBox(
            'Gateway calls',
            `${trace.gatewayCalls.length} · ${usd(trace.gatewayCalls.reduce((sum, c) => sum + c.cost, 0))}`,
            'gateway-calls',
          )
        : null,
    ),
    section('Trace', traceFacts(trace, ctx.project)),
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
      'Observations',
      spans.length === 0
        ? empty('This trace has no spans.')
        : h('div', { class: 'spans-layout' }, waterfall(trace, spans, details, ctx.project), details),
    ),
    isGateway || attempts.length
      ? section(
          isGateway ? 'Attempts' : 'Attempts of its gateway calls',
          table(
            attempts,
            [
              { title: 'Deployment', cell: (a) => h('code', null, a.d) },
              { title: 'Provider', cell: (a) => a.provider ?? '–' },
              { title: 'Model', cell: (a) => a.model ?? '–' },
              { title: 'Outcome', cell: (a) => outcome(a.o) },
              { title: 'Provider status', cell: (a) => (a.st === undefined ? '–' : String(a.st)), class: 'num' },
              { title: 'Time', cell: attemptTime, class: 'num' },
              { title: 'Why', cell: (a) => a.why ?? '' },
            ],
            { testid: 'attempts', emptyText: 'No provider attempts (answered before routing).' },
          ),
        )
      : null,
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
    Object.keys(trace.metadata ?? {}).length
      ? section('Metadata', h('pre', { class: 'io', 'data-testid': 'trace-metadata' }, asText(trace.metadata)))
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
