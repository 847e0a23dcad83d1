// Automations: a prompt-version trigger (created, updated, deleted) and an action (webhook, Slack, PagerDuty).
// Members and up create, edit, disable, delete, rotate the signing secret and resend deliveries.
import { del, get, inProject, patch, post } from '../api.ts';
import { h } from '../dom.ts';
import { setFlash, takeFlash } from '../flash.ts';
import { dateTime, ms, truncate } from '../format.ts';
import { href, navigate, seg } from '../router.ts';
import type { Page } from '../types.ts';
import {
  actionButton,
  badge,
  empty,
  field,
  pageHeader,
  pager,
  section,
  shownOnce,
  submitHandler,
  table,
} from '../ui.ts';
import type { ViewContext } from '../view.ts';

const EVENTS = ['created', 'updated', 'deleted'] as const;
const TYPES = [
  { id: 'webhook', label: 'Webhook (signed HTTP POST)' },
  { id: 'slack', label: 'Slack (incoming webhook URL)' },
  { id: 'pagerduty', label: 'PagerDuty (Events v2 routing key)' },
] as const;

interface Automation {
  id: string;
  name: string;
  events: string[];
  action: { type: 'webhook' | 'slack' | 'pagerduty'; url: string | null; headers: string[] };
  enabled: boolean;
  consecutiveFailures: number;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

interface Delivery {
  id: string;
  eventId: string;
  action: string;
  state?: string;
  attempt: number;
  at: string;
  status: number | null;
  latencyMs: number | null;
  responseStart: string | null;
  error: string | null;
}

interface Saved {
  automation: Automation;
  signingSecret?: string;
}

const base = (ctx: ViewContext) => `/p/${seg(ctx.project)}/automations`;
const api = (ctx: ViewContext, rest = '') => inProject(ctx.project, `/automations${rest}`);

function secretNotice(secret: string | undefined): void {
  if (secret) setFlash(shownOnce('Signing secret', secret, 'signing-secret'));
}

/** `Name: value` per line → headers. */
function parseHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)) {
    const i = line.indexOf(':');
    if (i <= 0) throw new Error(`Header line "${line}" is not "Name: value"`);
    headers[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return headers;
}

/** The create and edit form; on edit, headers and routing key are write-only (left empty: kept). */
function automationForm(
  existing: Automation | undefined,
  save: (body: Record<string, unknown>) => Promise<void>,
): HTMLElement {
  const name = h('input', { type: 'text', name: 'name', value: existing?.name ?? '', required: true, maxlength: 200 });
  const events = EVENTS.map((e) =>
    h('input', {
      type: 'checkbox',
      name: `event-${e}`,
      value: e,
      checked: existing ? existing.events.includes(e) : true,
    }),
  );
  const type = h(
    'select',
    { name: 'type' },
    TYPES.map((t) => h('option', { value: t.id, selected: (existing?.action.type ?? 'webhook') === t.id }, t.label)),
  );
  const url = h('input', {
    type: 'url',
    name: 'url',
    value: existing?.action.url ?? '',
    placeholder: 'https://example.com/hooks/prompts',
  });
  const headers = h('textarea', {
    name: 'headers',
    rows: 3,
    placeholder: existing?.action.headers.length ? `kept: ${existing.action.headers.join(', ')}` : 'X-Team: prompts',
  });
  const routingKey = h('input', {
    type: 'password',
    name: 'routingKey',
    placeholder: existing ? 'kept unless replaced' : '',
    autocomplete: 'off',
  });
  const urlField = field('URL', url);
  const headersField = field(
    'Headers (one "Name: value" a line, optional)',
    headers,
    existing ? 'Header values are never shown again; leave empty to keep them.' : undefined,
  );
  const keyField = field('Routing key', routingKey);
  const sync = () => {
    urlField.classList.toggle('hidden', type.value === 'pagerduty');
    headersField.classList.toggle('hidden', type.value !== 'webhook');
    keyField.classList.toggle('hidden', type.value !== 'pagerduty');
  };
  type.addEventListener('change', sync);
  sync();
  const message = h('p', { class: 'inline-error', role: 'alert' });
  const submit = h(
    'button',
    { type: 'submit', class: 'primary', 'data-testid': 'save-automation' },
    existing ? 'Save changes' : 'Create automation',
  );
  return h(
    'form',
    {
      class: 'form',
      'data-testid': 'automation-form',
      onsubmit: submitHandler(message, submit, async () => {
        const action: Record<string, unknown> = { type: type.value };
        if (type.value !== 'pagerduty') action.url = url.value.trim();
        if (type.value === 'webhook' && headers.value.trim()) action.headers = parseHeaders(headers.value);
        if (type.value === 'pagerduty' && routingKey.value) action.routingKey = routingKey.value;
        const body: Record<string, unknown> = {
          name: name.value.trim(),
          events: events.filter((c) => c.checked).map((c) => c.value),
        };
        // An unchanged action on edit is left out, so the stored headers and routing key stay.
        const actionChanged =
          !existing ||
          type.value !== existing.action.type ||
          (action.url ?? null) !== existing.action.url ||
          action.headers !== undefined ||
          action.routingKey !== undefined;
        if (actionChanged) body.action = action;
        await save(body);
      }),
    },
    field('Name', name),
    h(
      'div',
      { class: 'field' },
      h('span', null, 'Trigger: prompt versions'),
      h(
        'div',
        { class: 'checks' },
        events.map((c) => h('label', null, c, c.value)),
      ),
    ),
    field('Action', type),
    urlField,
    headersField,
    keyField,
    message,
    h('div', null, submit),
  );
}

function stateBadge(a: Automation): HTMLElement {
  return a.enabled
    ? badge('enabled', 'ok')
    : badge(a.disabledReason ? `disabled: ${a.disabledReason}` : 'disabled', 'bad');
}

export async function automationsPage(ctx: ViewContext): Promise<Node> {
  const list = await get<Page<Automation>>(api(ctx));
  const flash = takeFlash();
  const create = async (body: Record<string, unknown>) => {
    const saved = await post<Saved>(api(ctx), body);
    secretNotice(saved.signingSecret);
    navigate(`${base(ctx)}/${seg(saved.automation.id)}`);
  };
  return h(
    'div',
    { class: 'page' },
    pageHeader('Automations'),
    flash,
    section(
      'Automations',
      table(
        list.data,
        [
          {
            title: 'Name',
            cell: (a) => h('a', { href: href(`${base(ctx)}/${seg(a.id)}`), 'data-testid': 'automation-link' }, a.name),
          },
          { title: 'Events', cell: (a) => a.events.join(', ') },
          { title: 'Action', cell: (a) => badge(a.action.type) },
          {
            title: 'Target',
            cell: (a) => (a.action.url ? h('span', { class: 'mono' }, truncate(a.action.url, 60)) : '–'),
          },
          { title: 'State', cell: stateBadge },
          { title: 'Failures in a row', cell: (a) => String(a.consecutiveFailures), class: 'num' },
        ],
        { testid: 'automations', emptyText: 'No automations yet.' },
      ),
    ),
    ctx.canChange ? section('New automation', automationForm(undefined, create)) : null,
  );
}

export async function automationPage(ctx: ViewContext): Promise<Node> {
  const id = ctx.params.id!;
  const offset = Math.max(0, Number(ctx.query.get('offset') ?? 0) || 0);
  const limit = 50;
  const [list, deliveries] = await Promise.all([
    get<Page<Automation>>(api(ctx)),
    get<Page<Delivery>>(api(ctx, `/${encodeURIComponent(id)}/deliveries`), { limit, offset }),
  ]);
  const a = list.data.find((x) => x.id === id);
  if (!a) return empty(`No automation ${id}.`);
  const flash = takeFlash();
  const path = api(ctx, `/${encodeURIComponent(id)}`);
  const edit = async (body: Record<string, unknown>) => {
    const saved = await patch<Saved>(path, body);
    secretNotice(saved.signingSecret);
    ctx.refresh();
  };
  const controls = ctx.canChange
    ? h(
        'div',
        { class: 'actions' },
        actionButton(
          a.enabled ? 'Disable' : 'Enable',
          async () => {
            await patch(path, { enabled: !a.enabled });
            ctx.refresh();
          },
          { testid: 'toggle-automation' },
        ),
        a.action.type === 'webhook'
          ? actionButton(
              'Rotate signing secret',
              async () => {
                secretNotice((await post<{ signingSecret: string }>(`${path}/rotate-secret`)).signingSecret);
                ctx.refresh();
              },
              {
                confirmText: 'Rotate the signing secret? Receivers must switch to the new one.',
                testid: 'rotate-secret',
              },
            )
          : null,
        actionButton(
          'Delete',
          async () => {
            await del(path);
            navigate(base(ctx));
          },
          { class: 'danger', confirmText: `Delete automation "${a.name}"?`, testid: 'delete-automation' },
        ),
      )
    : null;
  const resend = (d: Delivery) =>
    actionButton(
      'Resend',
      async () => {
        await post(`${path}/deliveries/${encodeURIComponent(d.eventId)}/resend`);
        ctx.refresh();
      },
      { testid: 'resend' },
    );
  return h(
    'div',
    { class: 'page', 'data-testid': 'automation-page' },
    h('p', { class: 'crumbs' }, h('a', { href: href(base(ctx)) }, 'Automations'), ` › ${a.name}`),
    pageHeader(a.name, stateBadge(a), controls),
    flash,
    section(
      'Settings',
      h(
        'dl',
        { class: 'facts' },
        h('dt', null, 'Trigger'),
        h('dd', null, `prompt version ${a.events.join(', ')}`),
        h('dt', null, 'Action'),
        h('dd', null, a.action.type),
        a.action.url ? [h('dt', null, 'URL'), h('dd', { class: 'mono' }, a.action.url)] : null,
        a.action.headers.length ? [h('dt', null, 'Headers'), h('dd', null, a.action.headers.join(', '))] : null,
        h('dt', null, 'Failed events in a row'),
        h('dd', null, String(a.consecutiveFailures)),
        h('dt', null, 'Updated'),
        h('dd', null, dateTime(a.updatedAt)),
      ),
      ctx.canChange ? h('details', { class: 'edit' }, h('summary', null, 'Edit'), automationForm(a, edit)) : null,
    ),
    section(
      'Delivery log',
      table(
        deliveries.data,
        [
          { title: 'At', cell: (d) => h('span', { class: 'mono nowrap' }, dateTime(d.at)) },
          {
            title: 'Event',
            cell: (d) => h('span', { class: 'mono', title: d.eventId }, `${d.action} · ${truncate(d.eventId, 14)}`),
          },
          { title: 'Attempt', cell: (d) => String(d.attempt), class: 'num' },
          {
            title: 'Status',
            cell: (d) =>
              d.status === null
                ? badge(d.error ? 'failed' : '–', 'bad')
                : badge(String(d.status), d.status >= 200 && d.status < 300 ? 'ok' : 'bad'),
          },
          { title: 'Latency', cell: (d) => ms(d.latencyMs), class: 'num' },
          {
            title: 'Answer',
            cell: (d) =>
              h(
                'span',
                { class: 'mono', title: d.responseStart ?? '' },
                truncate(d.responseStart ?? d.error ?? '', 80),
              ),
          },
          { title: '', cell: (d) => (ctx.canChange ? resend(d) : null) },
        ],
        { testid: 'deliveries', emptyText: 'No deliveries yet.' },
      ),
      pager(offset, limit, deliveries.data.length, deliveries.pagination, (o) => ctx.setQuery({ offset: String(o) })),
    ),
  );
}
