// The observation tree on a timeline, and the selected node's details: input, output, metadata, model, usage and cost
// per part, level and timings; a gateway call's status, model group, cost parts, cache, fallback, attempts and
// guardrail verdicts.
import { h, replace, type Child } from '../dom.ts';
import { asText, dateTime, ms, num, usd } from '../format.ts';
import { href, seg } from '../router.ts';
import { badge } from '../ui.ts';
import { callCostDetails, verdictList } from './gateway-call-facts.ts';
import { endOf, treeOrder, type Attempt, type GatewayCall, type Span, type Trace } from './trace-model.ts';
import { statusBadge } from './traces.ts';

export const attemptTime = (a: Attempt) =>
  a.firstChunkMs === undefined ? ms(a.ms) : `${ms(a.ms)} (first chunk ${ms(a.firstChunkMs)})`;

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

export function waterfall(trace: Trace, spans: Span[], details: HTMLElement, project: string): HTMLElement {
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

export const fact = (label: string, value: Child, testid?: string) => [
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
  const costDetails = callCostDetails(c.attempts);
  const guardrails = verdictList(c.governance);
  const {
    'gateway.fallback_from': fallbackFrom,
    'gateway.redactions': redactions,
    'gateway.budget_soft_exceeded': softLimits,
    'gateway.usage_estimated': usageEstimated,
  } = c.governance as Record<string, unknown> & { 'gateway.redactions'?: unknown[] };
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
      Object.keys(costDetails).length > 1
        ? fact('Cost parts', parts(costDetails, usd), 'gateway-call-cost-parts')
        : null,
      fact('Cache', c.cacheHit === null ? '–' : c.cacheHit ? 'hit' : 'miss'),
      fallbackFrom ? fact('Fell back from', String(fallbackFrom), 'gateway-call-fallback') : null,
      fact('Attempts', c.attempts.map((a) => `${a.d} ${a.o} ${attemptTime(a)}`).join(', ') || '–'),
      guardrails ? fact('Guardrails', guardrails) : null,
      redactions ? fact('Redactions', num(redactions.length), 'gateway-call-redactions') : null,
      softLimits ? fact('Soft budget passed', asText(softLimits)) : null,
      usageEstimated ? fact('Usage estimated', String(usageEstimated)) : null,
    ),
    block('Input', c.input, 'span-input'),
    block('Output', c.output, 'span-output'),
  );
}
