// The dashboard's prompt routes (docs/dashboard.md) on both store backends: each version's generations summed from
// the observations ingested with its promptName/promptVersion (count, mean and median latency, tokens, cost, first and
// last use) and the newest of one version; a label moved through the dashboard records the same prompt-version events
// as the same move through the public API, and an audit row by the signed-in user; viewers read but get 403 on a
// change, no session 401. On a fresh PostgreSQL store the usage queries read the prompt index, never the whole table.
import t from 'tap';
import { promptVersionGenerations, promptVersionUsage } from '../../src/platform/store/repos/prompt-usage.ts';
import { addUser } from '../../src/observability/users/add-user.ts';
import type { PromptVersionEvent } from '../../src/platform/store/repos/prompt-version-events.ts';
import { dashboardRequest, signIn } from '../helpers/dashboard.ts';
import { freshStoreWithProject, generateTraces } from '../helpers/generated-traces.ts';
import { seedTriage, TRIAGE } from '../helpers/prompt-versions.ts';
import { basicAuth, callAdmin } from '../helpers/public-api.ts';
import { describe, indexesOf, plansOf } from '../helpers/query-plans.ts';
import { baseConfig, startTestService } from '../helpers/service.ts';
import { STORE_BACKENDS, testDatabase } from '../helpers/store.ts';
import { waitFor } from '../helpers/wait-for.ts';

const P = '/projects/default';
const enc = encodeURIComponent;

for (const backend of STORE_BACKENDS) {
  t.test(`prompt usage and label moves on ${backend}`, async (t) => {
    const recorded: PromptVersionEvent[] = [];
    const s = await startTestService(t, baseConfig(), {
      backend,
      promptEvents: { record: async (_tx, events) => void recorded.push(...events) },
    });
    const db = s.service.db;
    const key = await seedTriage(s);
    const password = 'correct horse battery staple';
    await addUser(
      db,
      { email: 'viewer@example.test', name: 'Viewer', role: 'viewer', password },
      { actor: 'test', organizationId: 'default' },
    );
    const owner = await signIn(s, 'owner@localhost', s.service.firstOwner!.password);
    const viewer = await signIn(s, 'viewer@example.test', password);
    const name = enc(TRIAGE);

    const usage = await waitFor('the generations stored', async () => {
      const r = await viewer.call('GET', `${P}/prompts/${name}/usage`);
      return r.body.data?.length === 2 && r.body.data;
    });
    t.match(usage, [
      { version: 2, generations: 1, avgLatencyMs: 1500, p50LatencyMs: 1500, inputTokens: 40, outputTokens: 20 },
      { version: 1, generations: 3, avgLatencyMs: 3000, p50LatencyMs: 2000, inputTokens: 60, outputTokens: 30 },
    ]);
    t.same(
      usage.map((u: any) => [u.totalTokens, u.totalCost]),
      [
        [60, 0.0625],
        [90, 0.875],
      ],
      'tokens and cost summed per version',
    );
    t.ok(Date.parse(usage[1].firstUsedAt) < Date.parse(usage[1].lastUsedAt), 'first and last use');

    const v1 = await viewer.call('GET', `${P}/prompts/${name}/versions/1/generations`);
    t.same(
      v1.body.data.map((g: any) => [g.traceId, g.latencyMs, g.totalTokens, g.totalCost]),
      [
        ['triage-2', 6000, 45, 0.125],
        ['triage-1', 2000, 30, 0.5],
        ['triage-0', 1000, 15, 0.25],
      ],
      "v1's generations, newest first",
    );
    t.same((await viewer.call('GET', `${P}/prompts/${name}/versions/3/generations`)).body.data, [], 'v3: none');
    t.same((await viewer.call('GET', `${P}/prompts/nothing/usage`)).body.data, [], 'an unknown name: nothing used');
    t.equal((await dashboardRequest(s, 'GET', `${P}/prompts/${name}/usage`)).status, 401, 'no session: 401');

    // Two identical prompts; production moved from v1 to v2 of one through the public API, of the other here.
    for (const twin of ['twin-api', 'twin-dashboard'])
      for (const labels of [['production', 'staging'], []]) {
        const r = await callAdmin(s, 'POST', '/api/public/v2/prompts', basicAuth(key), {
          name: twin,
          type: 'text',
          prompt: `v${labels.length ? 1 : 2}`,
          labels,
        });
        t.equal(r.status, 201);
      }
    /** The events `move` recorded, as the version and labels each reports. */
    const eventsOf = async (move: () => Promise<{ status: number; body: any }>) => {
      const before = recorded.length;
      const r = await move();
      t.equal(r.status, 200);
      return {
        body: r.body,
        events: recorded
          .slice(before)
          .map((e) => ({ action: e.action, version: e.prompt.version, labels: e.prompt.labels })),
      };
    };
    const refused = await viewer.call('PUT', `${P}/prompts/twin-dashboard/versions/2/labels`, {
      labels: ['production'],
    });
    t.equal(refused.status, 403, 'a viewer may not move a label');
    const patched = await eventsOf(() =>
      callAdmin(s, 'PATCH', '/api/public/v2/prompts/twin-api/versions/2', basicAuth(key), {
        newLabels: ['production'],
      }),
    );
    const put = await eventsOf(() =>
      owner.call('PUT', `${P}/prompts/twin-dashboard/versions/2/labels`, { labels: ['production'] }),
    );
    t.same(put.body.labels, patched.body.labels, 'the version ends with the same labels');
    t.same(put.events, patched.events, 'the same prompt-version events');
    t.same(
      patched.events,
      [
        { action: 'updated', version: 2, labels: ['latest', 'production'] },
        { action: 'updated', version: 1, labels: ['staging'] },
      ],
      'an update of the version moved to, and of the one moved from',
    );
    const got = await callAdmin(s, 'GET', '/api/public/v2/prompts/twin-dashboard?label=production', basicAuth(key));
    t.equal(got.body.version, 2, 'the public API serves the moved label');

    const audit = await db.query<any>(
      `SELECT actor, resource_id, details FROM audit_log WHERE action = 'prompt.labels' ORDER BY id`,
    );
    t.same(
      audit.rows.map((r) => [r.actor, r.resource_id, r.details]),
      [
        [
          'dashboard:owner@localhost',
          put.body.id as string,
          {
            name: 'twin-dashboard',
            version: 2,
            from: ['latest'],
            to: ['latest', 'production'],
            movedFrom: [{ version: 1, labels: ['staging'] }],
          },
        ],
      ],
      'one audit row, by the owner, of the dashboard move only',
    );
    const latest = await owner.call('PUT', `${P}/prompts/twin-dashboard/versions/1/labels`, { labels: ['latest'] });
    t.equal(latest.status, 400, '`latest` cannot be set');
  });
}

t.test('the usage queries read the prompt index on a fresh PostgreSQL store', async (t) => {
  const db = await testDatabase(t, 'postgres');
  await freshStoreWithProject(db, 'p');
  await generateTraces(db, { projectId: 'p', count: 20_000, from: '2026-01-01T00:00:00Z' });
  await db.query(`UPDATE observations SET prompt_name = 'rare', prompt_version = 1 WHERE id IN ('gen-7-3', 'gen-9-3')`);
  for (const [what, run] of [
    ['per-version sums', () => plansOf(db, (q) => promptVersionUsage(q, 'p', 'rare'))],
    [
      'newest generations',
      () => plansOf(db, (q) => promptVersionGenerations(q, 'p', { name: 'rare', version: 1 }, 20)),
    ],
  ] as const) {
    const [plan] = await run();
    t.ok(indexesOf(plan!).includes('observations_project_prompt'), `${what}: ${describe(plan!)}`);
    t.notOk(
      plan!.nodes.some((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'observations'),
      `${what}: no sequential scan`,
    );
  }
  t.same(
    (await promptVersionUsage(db, 'p', 'rare')).map((u) => [u.version, u.generations]),
    [[1, 2]],
  );
});
