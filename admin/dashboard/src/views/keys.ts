// Gateway keys of a project: list (keys declared in gateway.yaml too, read-only); members and up mint, block,
// unblock, rotate (the old key lasts a grace window) and delete. A key's plaintext is shown once, after minting or
// rotating. Admins and owners turn the project's gateway serving off and on.
import { del, get, inProject, post, put } from '../api.ts';
import { h } from '../dom.ts';
import { setFlash, takeFlash } from '../flash.ts';
import { dateTime, usd } from '../format.ts';
import type { Page } from '../types.ts';
import { actionButton, badge, field, pageHeader, section, shownOnce, submitHandler, table } from '../ui.ts';
import type { ViewContext } from '../view.ts';

interface Key {
  id: string;
  alias: string;
  agentId: string | null;
  modelGroups: string[];
  expiresAt: string | null;
  rotatedAt: string | null;
  graceEndsAt: string | null;
  blocked: boolean;
  state: 'active' | 'blocked' | 'expired';
  rpm: number | null;
  tpm: number | null;
  budgetUsd: number | null;
  budgetPeriod: 'total' | 'daily' | 'monthly' | null;
  source: string;
  createdAt: string | null;
  /** Declared in gateway.yaml: changed in the file, not here. */
  readOnly: boolean;
}

/** The project's serving switch: the dashboard's, gateway.yaml's, and whether keys work (both on). */
interface Serving {
  serving: boolean;
  servingInConfig: boolean;
  effective: boolean;
}

const STATE_KIND = { active: 'ok', blocked: 'bad', expired: 'muted' } as const;

const budgetText = (k: Key) =>
  k.budgetUsd === null
    ? null
    : `${usd(k.budgetUsd)} ${k.budgetPeriod === 'total' || k.budgetPeriod === null ? 'in all' : k.budgetPeriod}`;

function mintForm(
  ctx: ViewContext,
  agents: { id: string; name: string; status: string }[],
  groups: string[],
): HTMLElement {
  const agent = h(
    'select',
    { name: 'agentId', required: true },
    agents
      .filter((a) => a.status === 'active')
      .map((a) => h('option', { value: a.id }, a.name === a.id ? a.id : `${a.name} (${a.id})`)),
  );
  const groupBoxes = groups.map((g) => h('input', { type: 'checkbox', name: 'modelGroup', value: g }));
  const hours = h('input', { type: 'number', name: 'expiresInHours', min: 1, step: 1, value: 24, required: true });
  const alias = h('input', { type: 'text', name: 'alias', placeholder: 'generated from the agent', maxlength: 64 });
  const budget = h('input', { type: 'number', name: 'budgetUsd', min: 0, step: 'any', placeholder: 'none' });
  const rpm = h('input', { type: 'number', name: 'rpm', min: 1, step: 1, placeholder: 'none' });
  const tpm = h('input', { type: 'number', name: 'tpm', min: 1, step: 1, placeholder: 'none' });
  const message = h('p', { class: 'inline-error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'primary', 'data-testid': 'mint-key' }, 'Mint key');
  const optionalNumber = (input: HTMLInputElement) => (input.value === '' ? undefined : Number(input.value));
  return h(
    'form',
    {
      class: 'form',
      onsubmit: submitHandler(message, submit, async () => {
        const body = {
          agentId: agent.value,
          modelGroups: groupBoxes.filter((b) => b.checked).map((b) => b.value),
          expiresInHours: Number(hours.value),
          alias: alias.value.trim() || undefined,
          budgetUsd: optionalNumber(budget),
          rpm: optionalNumber(rpm),
          tpm: optionalNumber(tpm),
        };
        const minted = await post<{ key: string; alias: string }>(inProject(ctx.project, '/keys'), body);
        setFlash(shownOnce(`Key ${minted.alias}`, minted.key, 'key-plaintext'));
        ctx.refresh();
      }),
    },
    agents.length === 0 ? h('p', { class: 'hint' }, 'A key is bound to an agent; this project has none active.') : null,
    field('Agent', agent),
    h(
      'div',
      { class: 'field' },
      h('span', null, 'Model groups'),
      h(
        'div',
        { class: 'checks' },
        groupBoxes.map((b) => h('label', null, b, b.value)),
      ),
    ),
    h('div', { class: 'row' }, field('Expires in (hours)', hours), field('Alias', alias)),
    h(
      'div',
      { class: 'row' },
      field('Budget (USD, whole life)', budget),
      field('Requests / min', rpm),
      field('Tokens / min', tpm),
    ),
    message,
    h('div', null, submit),
  );
}

function servingSection(ctx: ViewContext, s: Serving): HTMLElement {
  const mayChange = ctx.user.role === 'admin' || ctx.user.role === 'owner';
  const why = !s.servingInConfig
    ? 'Turned off in gateway.yaml (projects[].serving): change it in the file.'
    : s.serving
      ? "The gateway serves requests with this project's keys."
      : 'Turned off here: every gateway key of this project is refused (401 invalid_api_key).';
  const toggle = actionButton(
    s.serving ? 'Turn serving off' : 'Turn serving on',
    async () => {
      await put(inProject(ctx.project, '/serving'), { serving: !s.serving });
      ctx.refresh();
    },
    s.serving
      ? {
          class: 'danger',
          testid: 'toggle-serving',
          confirmText:
            'Turn serving off? Every gateway key of this project is refused, on every replica within seconds.',
        }
      : { testid: 'toggle-serving' },
  );
  return section(
    'Gateway serving',
    h(
      'div',
      { class: 'row', 'data-testid': 'serving' },
      s.effective ? badge('serving', 'ok') : badge('off', 'bad'),
      h('span', { class: 'hint' }, why),
      mayChange && s.servingInConfig ? toggle : null,
    ),
  );
}

/** Keys of gateway.yaml that expired or expire within a week: the same lines start and reload log. */
function expiryNotice(warnings: string[]): HTMLElement {
  return h(
    'div',
    { class: 'notice warn', role: 'alert', 'data-testid': 'key-expiry-warnings' },
    h('strong', null, badge('expiry', 'warn'), ' Keys of gateway.yaml that expired or expire within 7 days'),
    h(
      'ul',
      null,
      warnings.map((w) => h('li', null, w)),
    ),
    h('p', { class: 'hint' }, 'Change expires_at in gateway.yaml (or remove it: such a key does not expire).'),
  );
}

export async function keysPage(ctx: ViewContext): Promise<Node> {
  const [serving, keys, agents, groups] = await Promise.all([
    get<Serving>(inProject(ctx.project, '/serving')),
    get<Page<Key> & { expiryWarnings: string[] }>(inProject(ctx.project, '/keys')),
    ctx.canChange
      ? get<Page<{ id: string; name: string; status: string }>>(inProject(ctx.project, '/agents'))
      : Promise.resolve({ data: [] }),
    ctx.canChange ? get<Page<{ name: string }>>('/model-groups') : Promise.resolve({ data: [] }),
  ]);
  const flash = takeFlash();
  const path = (k: Key, rest = '') => inProject(ctx.project, `/keys/${encodeURIComponent(k.id)}${rest}`);
  const controls = (k: Key) =>
    h(
      'div',
      { class: 'actions' },
      k.blocked
        ? actionButton(
            'Unblock',
            async () => {
              await post(path(k, '/unblock'));
              ctx.refresh();
            },
            { testid: `unblock-${k.alias}` },
          )
        : actionButton(
            'Block',
            async () => {
              await post(path(k, '/block'));
              ctx.refresh();
            },
            { class: 'danger', testid: `block-${k.alias}` },
          ),
      k.rotatedAt
        ? null
        : actionButton(
            'Rotate',
            async () => {
              const answer = window.prompt('Hours the current key keeps working (grace window):', '24');
              if (answer === null) return;
              const rotated = await post<{ plaintext: string; key: Key }>(path(k, '/rotate'), {
                graceHours: Number(answer),
              });
              setFlash(shownOnce(`New key for ${rotated.key.alias}`, rotated.plaintext, 'key-plaintext'));
              ctx.refresh();
            },
            { testid: `rotate-${k.alias}` },
          ),
      actionButton(
        'Delete',
        async () => {
          await del(path(k));
          ctx.refresh();
        },
        {
          class: 'danger',
          confirmText: `Delete key ${k.alias}? Requests with it are refused at once.`,
          testid: `delete-${k.alias}`,
        },
      ),
    );
  return h(
    'div',
    { class: 'page' },
    pageHeader('Gateway keys'),
    flash,
    servingSection(ctx, serving),
    keys.expiryWarnings.length > 0 ? expiryNotice(keys.expiryWarnings) : null,
    section(
      'Keys',
      table(
        keys.data,
        [
          { title: 'Alias', cell: (k) => h('code', null, k.alias) },
          { title: 'Agent', cell: (k) => k.agentId ?? '–' },
          { title: 'Model groups', cell: (k) => k.modelGroups.join(', ') },
          { title: 'State', cell: (k) => badge(k.state, STATE_KIND[k.state] ?? 'muted') },
          {
            title: 'Expires',
            cell: (k) => (k.rotatedAt ? `grace ends ${dateTime(k.graceEndsAt)}` : dateTime(k.expiresAt)),
          },
          {
            title: 'Limits',
            cell: (k) =>
              [k.rpm ? `${k.rpm} rpm` : null, k.tpm ? `${k.tpm} tpm` : null, budgetText(k)]
                .filter(Boolean)
                .join(' · ') || '–',
          },
          {
            title: 'Source',
            cell: (k) => (k.readOnly ? h('span', null, 'gateway.yaml ', badge('read-only')) : k.source),
          },
          { title: '', cell: (k) => (ctx.canChange && !k.readOnly ? controls(k) : null) },
        ],
        {
          testid: 'keys',
          emptyText: 'No gateway keys in this project.',
          rowAttrs: (k) => ({ 'data-alias': k.alias, 'data-read-only': String(k.readOnly) }),
        },
      ),
      keys.data.some((k) => k.readOnly)
        ? h(
            'p',
            { class: 'hint' },
            'Keys declared in gateway.yaml are read-only here: change them in the file. Their plaintext is never shown (a generated one is printed once, at the first start).',
          )
        : null,
    ),
    ctx.canChange
      ? section(
          'Mint a key',
          mintForm(
            ctx,
            agents.data,
            groups.data.map((g) => g.name),
          ),
        )
      : null,
  );
}
