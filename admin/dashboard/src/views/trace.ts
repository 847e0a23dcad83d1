// One trace, whatever sent it (an SDK, OTel, ingestion, the gateway): its observation tree on a timeline, the gateway
// calls its spans made (joined by traceparent) in place with their attempts; a selected node's input, output, metadata,
// model, usage and cost per part, level and timings; the trace's user, session and tags as links, input and output,
// scores. The gateway's own cards (agent, model group, HTTP status, cache) only on a gateway trace.
import { get, inProject } from '../api.ts';
import { h } from '../dom.ts';
import { asText, dateTime, ms, num, usd } from '../format.ts';
import { href, seg } from '../router.ts';
import { badge, empty, pageHeader, section, table } from '../ui.ts';
import type { ViewContext } from '../view.ts';
import { gatewayCallSpans, type Trace } from './trace-model.ts';
import { addToDataset } from './trace-add-to-dataset.ts';
import { annotateTrace } from './trace-annotate.ts';
import { attemptTime, fact, waterfall } from './trace-observations.ts';
import { statusBadge } from './traces.ts';

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
    pageHeader(trace.name ?? trace.id, statusBadge(trace.status, trace.errorCode), addToDataset(ctx, trace)),
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
      annotateTrace(ctx, trace),
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
