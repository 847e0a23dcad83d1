// The datasets and experiments pages in a real browser (Debian chromium through playwright-core). A dataset of two
// items and two runs of it are made through the Langfuse public API, each run item linked to a trace (sent through
// ingestion) with its own output, latency, cost and score; then the datasets list, the dataset page (items, runs with
// their averages), the comparison of the two runs (outputs and scores per item, differences marked, a row of
// averages), "Add to dataset" from a trace page (the item then on the dataset page and in the public API), archiving
// and restoring an item, and a viewer without the write controls and refused by the routes. Screenshots go to test-artifacts/screenshots/.
import t from 'tap';
import { ms, usd } from '../../admin/dashboard/src/format.ts';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { getTrace } from '../../src/platform/store/repos/traces.ts';
import { addUser } from '../../src/observability/users/add-user.ts';
import { ensureDashboardBuild, screenshot, signedInPage } from '../helpers/browser.ts';
import { signIn } from '../helpers/dashboard.ts';
import { basicAuth, callAdmin } from '../helpers/public-api.ts';
import { baseConfig, startTestService } from '../helpers/service.ts';
import { sendTurns, type SeededTurn } from '../helpers/session-traces.ts';
import { waitFor } from '../helpers/wait-for.ts';

const DATASET = 'qa/capitals';
const PASSWORD = 'correct horse battery staple';

/** An experiment's trace: the question of an item, answered. Costs are exact in binary. */
const turn = (id: string, question: string, answer: string, durationMs: number, cost: number): SeededTurn => ({
  id,
  name: `answer ${id}`,
  question,
  answer,
  startMs: 0,
  durationMs,
  tokens: 20,
  cost,
});

const ITEMS = [
  { id: 'item-fr', input: { country: 'France' }, expectedOutput: 'Paris', metadata: { region: 'eu' } },
  { id: 'item-jp', input: { country: 'Japan' }, expectedOutput: 'Tokyo', metadata: { region: 'asia' } },
];
/** Per run, per item: its trace and its accuracy score. prompt-v2 answers France wrong. */
const RUNS = {
  'prompt-v1': [
    { item: 'item-fr', trace: turn('base-fr', 'France?', 'Paris', 1000, 0.25), accuracy: 1 },
    { item: 'item-jp', trace: turn('base-jp', 'Japan?', 'Tokyo', 2000, 0.5), accuracy: 1 },
  ],
  'prompt-v2': [
    { item: 'item-fr', trace: turn('cand-fr', 'France?', 'Lyon', 500, 0.125), accuracy: 0 },
    { item: 'item-jp', trace: turn('cand-jp', 'Japan?', 'Tokyo', 1500, 0.125), accuracy: 1 },
  ],
};
/** A trace that is no experiment's, added to the dataset from its page. */
const SOURCE = turn('support-question', 'What is the capital of Italy?', 'Rome', 800, 0.0625);

const avg = (values: number[]) => values.reduce((n, v) => n + v, 0) / values.length;

t.test('datasets and experiments in the browser', async (t) => {
  await ensureDashboardBuild();
  const s = await startTestService(t, baseConfig());
  const db = s.service.db;
  for (const role of ['owner', 'viewer'] as const)
    await addUser(
      db,
      { email: `${role}@example.test`, name: role, role, password: PASSWORD },
      { actor: 'test', organizationId: 'default' },
    );
  const key = await createApiKey(db, {
    kind: 'project',
    organizationId: 'default',
    projectId: 'default',
    now: Date.now(),
  });
  const auth = basicAuth(key);
  const publicApi = async (method: string, path: string, body?: unknown) => {
    const r = await callAdmin(s, method, `/api/public${path}`, auth, body);
    if (r.status !== 200) throw new Error(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };

  const traces = Object.values(RUNS).flatMap((run) => run.map((r) => r.trace));
  await sendTurns(
    s.adminUrl,
    key,
    Date.now() - 3_600_000,
    [...traces, SOURCE].map((x) => ({ turn: x, userId: 'qa' })),
  );
  await waitFor('the traces stored', async () => (await getTrace(db, 'default', SOURCE.id)) !== undefined || undefined);
  await publicApi('POST', '/v2/datasets', { name: DATASET, description: 'Capital cities', metadata: { owner: 'qa' } });
  for (const item of ITEMS) await publicApi('POST', '/dataset-items', { datasetName: DATASET, ...item });
  for (const [runName, results] of Object.entries(RUNS))
    for (const r of results) {
      await publicApi('POST', '/dataset-run-items', {
        runName,
        runDescription: `capital prompt ${runName.slice(-2)}`,
        datasetItemId: r.item,
        traceId: r.trace.id,
      });
      await publicApi('POST', '/scores', { traceId: r.trace.id, name: 'accuracy', value: r.accuracy });
    }

  const { page, pageErrors } = await signedInPage(t, s.adminUrl, 'owner@example.test', PASSWORD);

  await t.test('the datasets list', async (t) => {
    await page.getByRole('link', { name: 'Datasets', exact: true }).click();
    const rows = page.getByTestId('datasets').locator('tbody tr');
    await rows.first().waitFor();
    t.equal(await rows.count(), 1);
    t.match(
      (await rows.nth(0).locator('td').allTextContents()).join(' | '),
      `${DATASET} | Capital cities | 2 | 2 |`,
      'its name, description, item and run counts',
    );
    await screenshot(page, 'dashboard-datasets');
  });

  await t.test('a new dataset from the list', async (t) => {
    await page.getByText('New dataset').click();
    await page.getByTestId('new-dataset-name').fill('scratch');
    await page.getByTestId('new-dataset-description').fill('Made in the dashboard');
    await page.getByRole('button', { name: 'Create dataset' }).click();
    await page.getByTestId('dataset-page').waitFor();
    t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'scratch', 'its page opens');
    t.equal(await page.getByTestId('dataset-item-count').textContent(), '0');
    t.match(await publicApi('GET', '/v2/datasets/scratch'), { name: 'scratch', description: 'Made in the dashboard' });
    await page.getByRole('link', { name: 'Datasets', exact: true }).first().click();
    await page.getByTestId('datasets').getByRole('link', { name: DATASET }).waitFor();
  });

  await t.test('the dataset page: its runs with their averages and its items', async (t) => {
    await page.getByTestId('datasets').getByRole('link', { name: DATASET }).click();
    await page.getByTestId('dataset-page').waitFor();
    t.equal(await page.getByTestId('dataset-item-count').textContent(), '2');
    t.same(
      await page.getByTestId('dataset-items').locator('[data-testid=item-input]').allTextContents(),
      ['{"country":"Japan"}', '{"country":"France"}'],
      'the items, newest first',
    );
    for (const [runName, results] of Object.entries(RUNS)) {
      const cells = await page.locator(`[data-testid=dataset-runs] tr[data-run="${runName}"] td`).allTextContents();
      t.same(
        cells.slice(4),
        [
          '2',
          String(avg(results.map((r) => r.accuracy))),
          ms(avg(results.map((r) => r.trace.durationMs))),
          usd(avg(results.map((r) => r.trace.cost))),
        ],
        `${runName}: items, average accuracy, latency and cost`,
      );
    }
    const accuracy = page.locator('[data-testid=run-bars][data-metric=accuracy]');
    t.same(await accuracy.locator('.run-bar-value').allTextContents(), ['1', '0.5'], 'a bar per run, the oldest first');
    t.match(
      await accuracy.locator('[data-run=prompt-v2] .run-bar-fill').getAttribute('style'),
      'width: 50.0%',
      "half the best run's",
    );
    await screenshot(page, 'dashboard-dataset-seeded');

    await page.getByTestId('dataset-runs').getByRole('link', { name: 'prompt-v2' }).click();
    await page.getByTestId('compare-page').waitFor();
    t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Run prompt-v2', "a run's own page");
    const outputs = await page.getByTestId('result-output').allTextContents();
    t.same(
      outputs.map((o) => JSON.parse(o).content),
      ['Tokyo', 'Lyon'],
      "each item's output in the run",
    );
    await page.goBack();
    await page.getByTestId('dataset-page').waitFor();
  });

  await t.test('comparing the two runs item by item', async (t) => {
    t.ok(await page.getByTestId('compare-runs').isDisabled(), 'two runs must be picked');
    await page.getByLabel('Compare prompt-v1').check();
    await page.getByLabel('Compare prompt-v2').check();
    await page.getByTestId('compare-runs').click();
    await page.getByTestId('compare-page').waitFor();
    const headers = await page.getByTestId('compare').locator('thead tr').first().locator('th').allTextContents();
    t.same(headers, ['Input', 'Expected output', 'prompt-v1 (baseline)', 'prompt-v2'], 'the first run picked first');

    const summary = page.getByTestId('compare-summary');
    for (const [runName, results] of Object.entries(RUNS)) {
      const cell = summary.locator(`[data-run=${runName}]`);
      t.equal(
        await cell.locator('div').first().textContent(),
        `2 items · ${ms(avg(results.map((r) => r.trace.durationMs)))} avg · ${usd(avg(results.map((r) => r.trace.cost)))} avg`,
        `${runName}: its item count, average latency and cost`,
      );
      t.equal(
        await cell.locator('[data-score=accuracy]').textContent(),
        `accuracy: ${avg(results.map((r) => r.accuracy))}`,
      );
    }

    for (const item of ITEMS) {
      const results = page.locator(`[data-testid=compare] tr[data-item=${item.id}] [data-testid=run-result]`);
      t.equal(await results.count(), 2, `${item.id}: a result of each run`);
      const [v1, v2] = Object.values(RUNS).map((run) => run.find((r) => r.item === item.id)!);
      const outputs = results.getByTestId('result-output');
      t.match(await outputs.nth(0).textContent(), v1!.trace.answer);
      t.match(await outputs.nth(1).textContent(), v2!.trace.answer);
      t.equal(await results.nth(1).getByTestId('result-latency').textContent(), ms(v2!.trace.durationMs));
      t.equal(await results.nth(1).getByTestId('result-cost').textContent(), usd(v2!.trace.cost));
      const differs = v1!.trace.answer !== v2!.trace.answer;
      t.equal(await outputs.nth(1).getAttribute('data-differs'), differs ? 'true' : null, `${item.id}: output marked`);
      const score = results.nth(1).locator('[data-score=accuracy]');
      const delta = v2!.accuracy - v1!.accuracy;
      t.equal(await score.textContent(), `accuracy: ${v2!.accuracy}${delta === 0 ? '' : ` (${delta})`}`);
      t.equal(await score.getAttribute('data-differs'), delta === 0 ? null : 'true', `${item.id}: score marked`);
    }
    t.equal(await page.locator('[data-differs]').count(), 2, "only item-fr's output and score marked");
    await screenshot(page, 'dashboard-dataset-compare');
  });

  await t.test('"Add to dataset" from a trace page', async (t) => {
    await page.goto(`${s.adminUrl}/dashboard/#/p/default/traces/${SOURCE.id}`);
    await page.getByTestId('add-to-dataset').click();
    const dialog = page.getByTestId('add-to-dataset-dialog');
    await dialog.waitFor();
    await dialog.getByTestId('dataset-picker').selectOption(DATASET);
    t.same(JSON.parse(await dialog.getByTestId('item-expected').inputValue()), {
      role: 'assistant',
      content: SOURCE.answer,
    });
    await screenshot(page, 'dashboard-add-to-dataset');
    await dialog.getByTestId('add-item').click();
    await page.getByTestId('added-to-dataset').getByRole('link', { name: DATASET }).click();
    await page.getByTestId('dataset-page').waitFor();
    t.equal(await page.getByTestId('dataset-item-count').textContent(), '3');
    const added = page.getByTestId('dataset-items').locator('tbody tr').first();
    t.equal(await added.getByTestId('item-source-trace').getAttribute('href'), `#/p/default/traces/${SOURCE.id}`);
    t.match(await added.getByTestId('item-expected').getAttribute('title'), SOURCE.answer);
    await screenshot(page, 'dashboard-dataset');

    const listed = await publicApi('GET', `/dataset-items?datasetName=${encodeURIComponent(DATASET)}`);
    const item = listed.data.find((i: any) => i.sourceTraceId === SOURCE.id);
    t.match(item, {
      datasetName: DATASET,
      status: 'ACTIVE',
      expectedOutput: { role: 'assistant', content: SOURCE.answer },
      input: [{ role: 'system' }, { role: 'user', content: SOURCE.question }],
    });
  });

  await t.test('"Add to dataset" into a new dataset', async (t) => {
    await page.goto(`${s.adminUrl}/dashboard/#/p/default/traces/${SOURCE.id}`);
    await page.getByTestId('add-to-dataset').click();
    const dialog = page.getByTestId('add-to-dataset-dialog');
    await dialog.getByTestId('dataset-picker').selectOption({ label: 'New dataset…' });
    await dialog.getByTestId('add-item').click();
    t.equal(await dialog.getByRole('alert').textContent(), 'Name the new dataset', 'a name is asked for');
    await dialog.getByTestId('new-dataset-name').fill('from-traces');
    await dialog.getByTestId('add-item').click();
    await page.getByTestId('added-to-dataset').getByRole('link', { name: 'from-traces' }).click();
    await page.getByTestId('dataset-page').waitFor();
    t.equal(await page.getByTestId('dataset-item-count').textContent(), '1');
    await page.goto(`${s.adminUrl}/dashboard/#/p/default/datasets/${encodeURIComponent(DATASET)}`);
    await page.getByTestId('dataset-items').waitFor();
  });

  await t.test('archiving an item and restoring it', async (t) => {
    const activeInPublicApi = async () =>
      (await publicApi('GET', `/dataset-items?datasetName=${encodeURIComponent(DATASET)}`)).data.map((i: any) => i.id);
    const row = () => page.getByTestId('dataset-items').locator('tbody tr').first();
    const id = await row().getAttribute('data-item');
    await row().getByRole('button', { name: 'Archive' }).click();
    await row().getByText('archived', { exact: true }).waitFor();
    t.equal(await page.getByTestId('dataset-item-count').textContent(), '2', 'the count is of active items');
    t.notOk((await activeInPublicApi()).includes(id), 'the public API leaves it out');
    await row().getByRole('button', { name: 'Restore' }).click();
    await row().getByText('active', { exact: true }).waitFor();
    t.equal(await page.getByTestId('dataset-item-count').textContent(), '3');
    t.ok((await activeInPublicApi()).includes(id), 'listed again');
  });

  await t.test('a viewer: no write controls, and the routes refuse', async (t) => {
    const viewer = await signedInPage(t, s.adminUrl, 'viewer@example.test', PASSWORD);
    await viewer.page.goto(`${s.adminUrl}/dashboard/#/p/default/traces/${SOURCE.id}`);
    await viewer.page.getByTestId('trace-page').waitFor();
    t.equal(await viewer.page.getByTestId('add-to-dataset').count(), 0, 'no "Add to dataset" button');
    await viewer.page.goto(`${s.adminUrl}/dashboard/#/p/default/datasets`);
    await viewer.page.getByTestId('datasets').waitFor();
    t.equal(await viewer.page.getByText('New dataset').count(), 0, 'no "New dataset" form');
    await viewer.page.getByTestId('datasets').getByRole('link', { name: DATASET }).click();
    await viewer.page.getByTestId('dataset-items').waitFor();
    t.equal(await viewer.page.getByTestId('item-status-toggle').count(), 0, 'no archive buttons');
    t.same(viewer.pageErrors, []);

    const client = await signIn(s, 'viewer@example.test', PASSWORD);
    const path = `/projects/default/datasets/${encodeURIComponent(DATASET)}/items`;
    const refused = await client.call('POST', path, { input: 'x', sourceTraceId: SOURCE.id });
    t.equal(refused.status, 403);
    t.equal(refused.body.error.code, 'permission_denied');
    t.equal((await client.call('POST', '/projects/default/datasets', { name: 'other' })).status, 403);
    t.equal((await client.call('PATCH', `${path}/item-fr`, { status: 'ARCHIVED' })).status, 403);
    t.equal((await client.call('GET', path)).body.data.length, 3, 'the items unchanged, and readable by a viewer');
  });

  t.same(pageErrors, [], 'no script errors');
});
