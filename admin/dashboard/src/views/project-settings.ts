// Project settings: the project's API keys (the public API's and the SDKs' Basic-auth pair) and its members. Every
// role sees the keys (public key, the secret's display form, created, expiry, last use) and the members; admins and
// owners create keys (the secret is shown once, in the page that created it) and revoke them after a confirmation.
// Members are the organization's dashboard users: their roles are changed on the Users page.
import { del, get, inProject, post } from '../api.ts';
import { h } from '../dom.ts';
import { setFlash, takeFlash } from '../flash.ts';
import { dateTime } from '../format.ts';
import { href, seg } from '../router.ts';
import type { Page, Role } from '../types.ts';
import { actionButton, badge, field, pageHeader, section, submitHandler, table } from '../ui.ts';
import type { ViewContext } from '../view.ts';

interface ProjectApiKey {
  id: string;
  publicKey: string;
  displaySecretKey: string;
  note: string | null;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
}

interface Member {
  id: string;
  email: string;
  name: string;
  role: Role;
  active: boolean;
}

/** A value with a copy button that says when it copied. */
function copyRow(label: string, value: string, testid: string): HTMLElement {
  const copy = h('button', { type: 'button', class: 'secondary', 'data-testid': `${testid}-copy` }, 'Copy');
  copy.addEventListener('click', () => {
    void navigator.clipboard?.writeText(value).then(() => (copy.textContent = 'Copied'));
  });
  return h(
    'div',
    null,
    h('span', { class: 'hint' }, label),
    h(
      'div',
      { class: 'secret-row' },
      h('input', { type: 'text', readOnly: true, value, class: 'secret', 'aria-label': label, 'data-testid': testid }),
      copy,
    ),
  );
}

/** The new pair, once: after this page is left or reloaded the secret exists nowhere but with whoever copied it. */
function createdNotice(created: { key: ProjectApiKey; secretKey: string }): HTMLElement {
  return h(
    'div',
    { class: 'notice success', role: 'status', 'data-testid': 'created-api-key' },
    h('strong', null, 'API key created'),
    copyRow('Public key', created.key.publicKey, 'created-public-key'),
    copyRow('Secret key', created.secretKey, 'created-secret-key'),
    copyRow('Host', location.origin, 'created-host'),
    h(
      'p',
      { class: 'notice warn', 'data-testid': 'secret-warning' },
      'Copy the secret key now: you will not see it again. Only its hash is stored; if it is lost, create a new key and revoke this one.',
    ),
  );
}

function createForm(ctx: ViewContext): HTMLElement {
  const note = h('input', { type: 'text', name: 'note', maxlength: 200, placeholder: 'e.g. production agents' });
  const message = h('p', { class: 'inline-error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'primary', 'data-testid': 'create-api-key' }, 'Create API key');
  return h(
    'form',
    {
      class: 'form',
      onsubmit: submitHandler(message, submit, async () => {
        const created = await post<{ key: ProjectApiKey; secretKey: string }>(inProject(ctx.project, '/api-keys'), {
          note: note.value.trim() || undefined,
        });
        setFlash(createdNotice(created));
        ctx.refresh();
      }),
    },
    h('div', { class: 'row' }, field('Note', note, 'What the key is for; shown in the list.')),
    message,
    h('div', null, submit),
  );
}

/** The day of a time, the full time on hover: keeps the key list one line per key. */
const day = (iso: string) => h('span', { title: dateTime(iso) }, iso.slice(0, 10));

const expired = (k: ProjectApiKey) => Date.parse(k.expiresAt) <= Date.now();

export async function projectSettingsPage(ctx: ViewContext): Promise<Node> {
  const [keys, members] = await Promise.all([
    get<Page<ProjectApiKey>>(inProject(ctx.project, '/api-keys')),
    get<Page<Member>>('/users'),
  ]);
  const manage = ctx.user.role === 'admin' || ctx.user.role === 'owner';
  const revoke = (k: ProjectApiKey) => async () => {
    await del(inProject(ctx.project, `/api-keys/${encodeURIComponent(k.id)}`));
    ctx.refresh();
  };
  return h(
    'div',
    { class: 'page' },
    pageHeader(`Project settings · ${ctx.project}`),
    takeFlash(),
    section(
      'API keys',
      h(
        'p',
        { class: 'hint' },
        'Project keys authenticate the public API (/api/public, Basic auth: public key and secret key) and the SDKs. ',
        'They expire six months after creation.',
      ),
      table(
        keys.data,
        [
          { title: 'Public key', class: 'nowrap', cell: (k) => h('code', null, k.publicKey) },
          { title: 'Secret key', class: 'nowrap', cell: (k) => h('code', null, k.displaySecretKey) },
          { title: 'Note', cell: (k) => k.note ?? '–' },
          { title: 'Created', class: 'nowrap', cell: (k) => day(k.createdAt) },
          {
            title: 'Expires',
            class: 'nowrap',
            cell: (k) => (expired(k) ? badge('expired', 'bad') : day(k.expiresAt)),
          },
          { title: 'Last used', class: 'nowrap', cell: (k) => (k.lastUsedAt ? dateTime(k.lastUsedAt) : 'never') },
          {
            title: '',
            cell: (k) =>
              manage
                ? actionButton('Revoke', revoke(k), {
                    class: 'danger',
                    testid: 'revoke-api-key',
                    confirmText: `Revoke ${k.publicKey}? Requests with it get 401 at once; this cannot be undone.`,
                  })
                : null,
          },
        ],
        {
          testid: 'api-keys',
          emptyText: 'No API keys yet.',
          rowAttrs: (k) => ({ 'data-public-key': k.publicKey }),
        },
      ),
      manage ? createForm(ctx) : h('p', { class: 'hint' }, 'Admins and owners create and revoke keys.'),
    ),
    section(
      'Members',
      h(
        'p',
        { class: 'hint' },
        'Every dashboard user of the organization is a member of its projects, with their organization role. ',
        manage ? h('a', { href: href(`/p/${seg(ctx.project)}/users`) }, 'Change roles on the Users page.') : null,
      ),
      table(
        members.data,
        [
          { title: 'Email', cell: (u) => u.email },
          { title: 'Name', cell: (u) => u.name || '–' },
          { title: 'Role', cell: (u) => badge(u.role) },
          { title: 'State', cell: (u) => (u.active ? badge('active', 'ok') : badge('deactivated', 'bad')) },
        ],
        { testid: 'members' },
      ),
    ),
  );
}
