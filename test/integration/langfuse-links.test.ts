// Langfuse's web paths on the admin port (what the Langfuse SDKs print and the public API's `htmlPath` carries) answer
// 302 into the dashboard's page for the same trace, session or prompt, addressed so that the dashboard's own router
// reads back the same project and id; the JS SDK v3's project-less `/trace/{id}` finds its project in the store;
// dataset paths, which have no dashboard page, say where datasets are.
import t from 'tap';
import { match } from '../../admin/dashboard/src/router.ts';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { generateTraces } from '../helpers/generated-traces.ts';
import { basicAuth, callAdmin } from '../helpers/public-api.ts';
import { baseConfig, chatBody, postJson, startTestService } from '../helpers/service.ts';

const s = await startTestService(
  t,
  baseConfig({
    projects: [
      { id: 'default', name: 'Default' },
      { id: 'other', name: 'Other' },
    ],
    plugins: [{ use: 'auth' }, { use: 'router' }, { use: 'tracing' }],
  }),
);
const key = await createApiKey(s.service.db, {
  kind: 'project',
  organizationId: 'default',
  projectId: 'default',
  now: Date.now(),
});

/** The redirect's target, split into the dashboard's page path (its URL fragment) and query. */
async function follow(path: string) {
  const res = await fetch(`${s.adminUrl}${path}`, { redirect: 'manual' });
  const location = res.headers.get('location') ?? '';
  const [page = '', fragment = ''] = location.split('#');
  const [route = '', query = ''] = fragment.split('?');
  return { status: res.status, location, page, route, query: new URLSearchParams(query) };
}

t.test("a gateway trace's htmlPath leads to its dashboard page", async (t) => {
  const res = await postJson(s.gatewayUrl, '/v1/chat/completions', chatBody());
  t.equal(res.status, 200);
  await res.text();
  const id = res.headers.get('x-svc-request-id')!;
  let trace: { status: number; body: any } = { status: 0, body: undefined };
  for (let i = 0; i < 100 && trace.status !== 200; i++) {
    trace = await callAdmin(s, 'GET', `/api/public/traces/${id}`, basicAuth(key));
    if (trace.status !== 200) await new Promise((r) => setTimeout(r, 50));
  }
  t.equal(trace.status, 200, 'the trace is readable through the public API');
  t.equal(trace.body.htmlPath, `/project/default/traces/${id}`);

  const r = await follow(trace.body.htmlPath);
  t.equal(r.status, 302);
  t.equal(r.page, '/dashboard/');
  t.same(match('/p/:project/traces/:id', r.route), { project: 'default', id }, "the dashboard's trace route");
  const page = await fetch(`${s.adminUrl}${r.page}`);
  t.match(page.headers.get('content-type'), /text\/html/, 'the target serves the dashboard page');
  await page.text();
});

t.test('ids and project names with reserved characters reach the dashboard unchanged', async (t) => {
  const r = await follow(`/project/${encodeURIComponent('team a/b')}/traces/${encodeURIComponent('run #1/2?x')}`);
  t.equal(r.status, 302);
  t.same(match('/p/:project/traces/:id', r.route), { project: 'team a/b', id: 'run #1/2?x' });
});

t.test('sessions, users, prompts and the bare lists', async (t) => {
  const session = await follow(`/project/default/sessions/${encodeURIComponent('conv 42/a')}`);
  t.equal(session.status, 302);
  t.same(match('/p/:project/sessions/:id', session.route), { project: 'default', id: 'conv 42/a' }, 'the session page');

  const user = await follow(`/project/default/users/${encodeURIComponent('user@example.test')}`);
  t.equal(user.status, 302);
  t.same(
    match('/p/:project/end-users/:id', user.route),
    { project: 'default', id: 'user@example.test' },
    'the user page',
  );

  const prompt = await follow(`/project/default/prompts/${encodeURIComponent('folder/support prompt')}`);
  t.same(match('/p/:project/prompts/:name', prompt.route), { project: 'default', name: 'folder/support prompt' });

  const lists: [string, string][] = [
    ['/project/default', '/p/:project/metrics'],
    ['/project/default/traces', '/p/:project/traces'],
    ['/project/default/sessions', '/p/:project/sessions'],
    ['/project/default/users', '/p/:project/end-users'],
    ['/project/default/prompts', '/p/:project/prompts'],
  ];
  for (const [path, pattern] of lists) {
    const r = await follow(path);
    t.equal(r.status, 302, path);
    t.same(match(pattern, r.route), { project: 'default' }, `${path} → ${pattern}`);
  }
});

t.test('/trace/{id} without a project: the project that holds the trace', async (t) => {
  const from = new Date().toISOString();
  await generateTraces(s.service.db, { projectId: 'other', count: 1, from, prefix: 'only-other' });
  await generateTraces(s.service.db, { projectId: 'default', count: 1, from, prefix: 'both' });
  await generateTraces(s.service.db, { projectId: 'other', count: 1, from, prefix: 'both' });

  const r = await follow('/trace/only-other-1');
  t.equal(r.status, 302);
  t.same(match('/p/:project/traces/:id', r.route), { project: 'other', id: 'only-other-1' });

  for (const [id, message] of [
    ['nowhere', /No trace nowhere in any project/],
    ['both-1', /several projects.*\/project\/\{projectId\}\/traces\/both-1/],
  ] as const) {
    const res = await fetch(`${s.adminUrl}/trace/${id}`, { redirect: 'manual' });
    t.equal(res.status, 404, id);
    t.match(await res.json(), { error: { code: 'not_found', message } });
  }
});

t.test('dataset paths: no dashboard page, the answer says where datasets are', async (t) => {
  for (const path of [
    '/project/default/datasets',
    '/project/default/datasets/ds-1',
    '/project/default/datasets/ds-1/runs/r-1',
  ]) {
    const res = await fetch(`${s.adminUrl}${path}`, { redirect: 'manual' });
    t.equal(res.status, 404, path);
    const html = await res.text();
    t.match(html, /no dataset page/);
    t.match(html, /\/api\/public\/v2\/datasets/);
    t.match(html, /href="\/dashboard\/#\/p\/default\/traces"/);
  }
});
