// The organization's dashboard users; admins and owners add them (the password is shown once), change roles and
// deactivate them. Only an owner may make or change an owner (checked on the server).
import { get, patch, post } from '../api.ts';
import { h } from '../dom.ts';
import { setFlash, takeFlash } from '../flash.ts';
import { dateTime } from '../format.ts';
import type { Page, Role } from '../types.ts';
import { actionButton, badge, errorText, field, pageHeader, section, shownOnce, submitHandler, table } from '../ui.ts';
import type { ViewContext } from '../view.ts';

interface UserRow {
  id: string;
  email: string;
  name: string;
  role: Role;
  active: boolean;
  createdAt: string;
}

const ROLES: Role[] = ['viewer', 'member', 'admin', 'owner'];

function addForm(ctx: ViewContext): HTMLElement {
  const email = h('input', { type: 'email', name: 'email', required: true });
  const name = h('input', { type: 'text', name: 'name', maxlength: 200 });
  const role = h(
    'select',
    { name: 'role' },
    ROLES.filter((r) => r !== 'owner' || ctx.user.role === 'owner').map((r) =>
      h('option', { value: r, selected: r === 'viewer' }, r),
    ),
  );
  const message = h('p', { class: 'inline-error', role: 'alert' });
  return h(
    'form',
    {
      class: 'form',
      onsubmit: submitHandler(message, null, async () => {
        const added = await post<{ user: UserRow; password: string }>('/users', {
          email: email.value.trim(),
          name: name.value.trim() || undefined,
          role: role.value,
        });
        setFlash(shownOnce(`Password of ${added.user.email}`, added.password, 'user-password'));
        ctx.refresh();
      }),
    },
    h('div', { class: 'row' }, field('Email', email), field('Name', name), field('Role', role)),
    message,
    h('div', null, h('button', { type: 'submit', class: 'primary' }, 'Add user')),
  );
}

export async function usersPage(ctx: ViewContext): Promise<Node> {
  const users = await get<Page<UserRow>>('/users');
  const manage = ctx.user.role === 'admin' || ctx.user.role === 'owner';
  const flash = takeFlash();
  const change = (u: UserRow, body: { role?: Role; active?: boolean }) => async () => {
    await patch(`/users/${encodeURIComponent(u.id)}`, body);
    ctx.refresh();
  };
  const roleSelect = (u: UserRow) => {
    const select = h(
      'select',
      { 'aria-label': `Role of ${u.email}` },
      ROLES.map((r) => h('option', { value: r, selected: r === u.role }, r)),
    );
    const status = h('span', { class: 'inline-error', role: 'alert' });
    select.addEventListener('change', () => {
      patch(`/users/${encodeURIComponent(u.id)}`, { role: select.value }).then(ctx.refresh, (err) => {
        status.textContent = errorText(err);
        select.value = u.role;
      });
    });
    return h('span', { class: 'action' }, select, status);
  };
  return h(
    'div',
    { class: 'page' },
    pageHeader('Users'),
    flash,
    section(
      'Dashboard users',
      table(
        users.data,
        [
          { title: 'Email', cell: (u) => u.email },
          { title: 'Name', cell: (u) => u.name || '–' },
          { title: 'Role', cell: (u) => (manage && u.id !== ctx.user.id ? roleSelect(u) : badge(u.role)) },
          { title: 'State', cell: (u) => (u.active ? badge('active', 'ok') : badge('deactivated', 'bad')) },
          { title: 'Added', cell: (u) => dateTime(u.createdAt) },
          {
            title: '',
            cell: (u) =>
              manage && u.id !== ctx.user.id
                ? u.active
                  ? actionButton('Deactivate', change(u, { active: false }), {
                      class: 'danger',
                      confirmText: `Deactivate ${u.email}? Their sessions end.`,
                    })
                  : actionButton('Activate', change(u, { active: true }))
                : null,
          },
        ],
        { testid: 'users' },
      ),
    ),
    manage ? section('Add a user', addForm(ctx)) : null,
  );
}
