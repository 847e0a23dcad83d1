// Boot: find the session (or show sign-in), then render the page the hash names inside the shell.
import './styles.css';
import { ApiError, del, get, setCsrfToken, whenUnauthenticated } from './api.ts';
import { h, replace } from './dom.ts';
import { currentLocation, match, navigate, seg } from './router.ts';
import { shell } from './shell.ts';
import type { Page, Project, SessionAnswer } from './types.ts';
import { errorBox } from './ui.ts';
import type { View, ViewContext } from './view.ts';
import { agentsPage } from './views/agents.ts';
import { annotationQueuePage } from './views/annotation-queue.ts';
import { annotationQueuesPage } from './views/annotation-queues.ts';
import { auditPage } from './views/audit.ts';
import { automationPage, automationsPage } from './views/automations.ts';
import { budgetsPage } from './views/budgets.ts';
import { datasetComparePage } from './views/dataset-compare.ts';
import { datasetPage, datasetsPage } from './views/datasets.ts';
import { endUserPage, endUsersPage } from './views/end-users.ts';
import { keysPage } from './views/keys.ts';
import { metricsPage } from './views/metrics.ts';
import { modelGroupsPage } from './views/model-groups.ts';
import { passwordPage } from './views/password.ts';
import { projectSettingsPage } from './views/project-settings.ts';
import { promptPage, promptsPage } from './views/prompts.ts';
import { scoreConfigsPage } from './views/score-configs.ts';
import { scoresPage } from './views/scores.ts';
import { seriesPage } from './views/series.ts';
import { sessionPage, sessionsPage } from './views/sessions.ts';
import { signInPage } from './views/sign-in.ts';
import { tracePage } from './views/trace.ts';
import { tracesPage } from './views/traces.ts';
import { usersPage } from './views/users.ts';

const ROUTES: { pattern: string; nav: string; view: View }[] = [
  { pattern: '/p/:project/metrics', nav: 'metrics', view: metricsPage },
  { pattern: '/p/:project/metrics/:dimension/:key', nav: 'metrics', view: seriesPage },
  { pattern: '/p/:project/agents', nav: 'agents', view: agentsPage },
  { pattern: '/p/:project/traces', nav: 'traces', view: tracesPage },
  { pattern: '/p/:project/traces/:id', nav: 'traces', view: tracePage },
  { pattern: '/p/:project/sessions', nav: 'sessions', view: sessionsPage },
  { pattern: '/p/:project/sessions/:id', nav: 'sessions', view: sessionPage },
  { pattern: '/p/:project/end-users', nav: 'end-users', view: endUsersPage },
  { pattern: '/p/:project/end-users/:id', nav: 'end-users', view: endUserPage },
  { pattern: '/p/:project/prompts', nav: 'prompts', view: promptsPage },
  { pattern: '/p/:project/prompts/:name', nav: 'prompts', view: promptPage },
  { pattern: '/p/:project/scores', nav: 'scores', view: scoresPage },
  { pattern: '/p/:project/score-configs', nav: 'scores', view: scoreConfigsPage },
  { pattern: '/p/:project/annotation-queues', nav: 'annotation-queues', view: annotationQueuesPage },
  { pattern: '/p/:project/annotation-queues/:id', nav: 'annotation-queues', view: annotationQueuePage },
  { pattern: '/p/:project/datasets', nav: 'datasets', view: datasetsPage },
  { pattern: '/p/:project/datasets/:name', nav: 'datasets', view: datasetPage },
  { pattern: '/p/:project/datasets/:name/compare', nav: 'datasets', view: datasetComparePage },
  { pattern: '/p/:project/automations', nav: 'automations', view: automationsPage },
  { pattern: '/p/:project/automations/:id', nav: 'automations', view: automationPage },
  { pattern: '/p/:project/model-groups', nav: 'model-groups', view: modelGroupsPage },
  { pattern: '/p/:project/keys', nav: 'keys', view: keysPage },
  { pattern: '/p/:project/budgets', nav: 'budgets', view: budgetsPage },
  { pattern: '/p/:project/audit', nav: 'audit', view: auditPage },
  { pattern: '/p/:project/users', nav: 'users', view: usersPage },
  { pattern: '/p/:project/settings', nav: 'settings', view: projectSettingsPage },
  { pattern: '/p/:project/password', nav: 'password', view: passwordPage },
];

const LAST_PROJECT = 'svc.dashboard.project';
const app = document.getElementById('app')!;
let session: SessionAnswer | null = null;
let projects: Project[] = [];
let cleanups: (() => void)[] = [];
let rendering = 0;

function runCleanups(): void {
  for (const fn of cleanups.splice(0)) {
    try {
      fn();
    } catch {
      // A chart already gone: nothing left to release.
    }
  }
}

function showSignIn(notice?: string): void {
  session = null;
  runCleanups();
  replace(
    app,
    signInPage((s) => void signedIn(s), notice),
  );
}

async function signedIn(s: SessionAnswer): Promise<void> {
  session = s;
  setCsrfToken(s.csrfToken);
  projects = (await get<Page<Project>>('/projects')).data;
  render();
}

async function signOut(): Promise<void> {
  try {
    await del('/session');
  } finally {
    showSignIn('Signed out.');
  }
}

function defaultProject(): string | undefined {
  const last = localStorage.getItem(LAST_PROJECT);
  return projects.find((p) => p.id === last)?.id ?? projects[0]?.id;
}

function render(): void {
  if (!session) return;
  const loc = currentLocation();
  let found: { route: (typeof ROUTES)[number]; params: Record<string, string> } | undefined;
  for (const route of ROUTES) {
    const params = match(route.pattern, loc.path);
    if (params) {
      found = { route, params };
      break;
    }
  }
  if (!found) {
    const p = defaultProject();
    if (p) navigate(`/p/${seg(p)}/metrics`);
    else
      replace(
        app,
        h('main', { class: 'sign-in-page' }, h('p', { class: 'notice' }, 'No project is visible to this user.')),
      );
    return;
  }
  const { route, params } = found;
  const project = params.project!;
  localStorage.setItem(LAST_PROJECT, project);
  runCleanups();
  const seq = ++rendering;
  const user = session.user;
  const { root, main } = shell(
    user,
    projects,
    project,
    route.nav,
    (id) => navigate(`/p/${seg(id)}/${route.nav}`),
    () => void signOut(),
  );
  replace(app, root);
  main.append(h('p', { class: 'loading', 'aria-busy': 'true' }, 'Loading…'));
  const ctx: ViewContext = {
    project,
    params,
    query: loc.query,
    user,
    canChange: user.role !== 'viewer',
    onCleanup: (fn) => cleanups.push(fn),
    setQuery: (q) => {
      const next: Record<string, string | undefined | null> = Object.fromEntries(loc.query);
      navigate(loc.path, { ...next, ...q });
    },
    refresh: render,
  };
  Promise.resolve()
    .then(() => route.view(ctx))
    .then(
      (node) => {
        if (seq === rendering) replace(main, node);
      },
      (err) => {
        if (seq !== rendering) return;
        if (err instanceof ApiError && err.code === 'unauthenticated') return;
        replace(main, errorBox(err));
      },
    );
}

async function boot(): Promise<void> {
  whenUnauthenticated(() => showSignIn('Your session has ended. Sign in again.'));
  window.addEventListener('hashchange', render);
  let s: SessionAnswer;
  try {
    s = await get<SessionAnswer>('/session');
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) showSignIn();
    else replace(app, h('main', { class: 'sign-in-page' }, errorBox(err)));
    return;
  }
  await signedIn(s);
}

void boot();
