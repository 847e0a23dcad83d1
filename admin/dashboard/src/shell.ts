// The frame around every page: header with the project picker and the user (with the link to change one's password),
// the navigation, the content.
import { h } from './dom.ts';
import { href, seg } from './router.ts';
import type { Project, User } from './types.ts';

export const NAV: { section?: string; items: { id: string; label: string }[] }[] = [
  {
    items: [
      { id: 'metrics', label: 'Metrics' },
      { id: 'agents', label: 'Agents' },
      { id: 'traces', label: 'Traces' },
      { id: 'sessions', label: 'Sessions' },
      { id: 'end-users', label: 'End users' },
      { id: 'prompts', label: 'Prompts' },
      { id: 'scores', label: 'Scores' },
      { id: 'annotation-queues', label: 'Annotation queues' },
      { id: 'datasets', label: 'Datasets' },
      { id: 'automations', label: 'Automations' },
    ],
  },
  {
    section: 'Gateway',
    items: [
      { id: 'model-groups', label: 'Model groups' },
      { id: 'keys', label: 'Keys' },
      { id: 'budgets', label: 'Budgets' },
    ],
  },
  {
    section: 'Organization',
    items: [
      { id: 'users', label: 'Users' },
      { id: 'audit', label: 'Audit log' },
      { id: 'settings', label: 'Project settings' },
    ],
  },
];

export interface ShellParts {
  root: HTMLElement;
  main: HTMLElement;
}

export function shell(
  user: User,
  projects: Project[],
  project: string,
  active: string,
  onProject: (id: string) => void,
  onSignOut: () => void,
): ShellParts {
  const picker = h(
    'select',
    {
      'aria-label': 'Project',
      'data-testid': 'project-picker',
      onchange: (e: Event) => onProject((e.target as HTMLSelectElement).value),
    },
    projects.map((p) =>
      h('option', { value: p.id, selected: p.id === project }, p.name === p.id ? p.id : `${p.name} (${p.id})`),
    ),
  );
  const nav = h(
    'nav',
    { class: 'side', 'aria-label': 'Pages' },
    NAV.map((group) =>
      h(
        'div',
        { class: 'nav-group' },
        group.section ? h('div', { class: 'nav-section' }, group.section) : null,
        group.items.map((i) =>
          h(
            'a',
            {
              href: href(`/p/${seg(project)}/${i.id}`),
              class: i.id === active ? 'active' : '',
              'aria-current': i.id === active ? 'page' : null,
            },
            i.label,
          ),
        ),
      ),
    ),
  );
  const main = h('main', { class: 'content', id: 'content' });
  const root = h(
    'div',
    { class: 'app' },
    h(
      'header',
      { class: 'top' },
      h('a', { class: 'brand', href: href(`/p/${seg(project)}/metrics`) }, 'svc'),
      picker,
      h('div', { class: 'spacer' }),
      h(
        'span',
        { class: 'who', 'data-testid': 'current-user' },
        user.email,
        ' ',
        h('span', { class: `badge role-${user.role}` }, user.role),
      ),
      h(
        'a',
        {
          class: 'account',
          href: href(`/p/${seg(project)}/password`),
          'data-testid': 'change-password',
          'aria-current': active === 'password' ? 'page' : null,
        },
        'Change password',
      ),
      h('button', { type: 'button', class: 'secondary', 'data-testid': 'sign-out', onclick: onSignOut }, 'Sign out'),
    ),
    h('div', { class: 'body' }, nav, main),
  );
  return { root, main };
}
