// The prompt pages in a real browser (Debian chromium through playwright-core), over a chat prompt of three versions
// created through the public API and generations linked to its versions sent through the Langfuse ingestion API: the
// diff of a version against the one before it and between any two (messages and config, added and removed lines
// marked), the production label moved in the page and read back through GET /api/public/v2/prompts/<name>?label=,
// a label added and removed, each version's generations with their count, latency, tokens and cost, a generation's
// link to its trace, and a viewer's page without controls. Screenshots go to test-artifacts/screenshots/ (the
// 1280×800 ones named dashboard-prompt-* are those of docs/images/).
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import t from 'tap';
import { ms, num, usd } from '../../admin/dashboard/src/format.ts';
import { addUser } from '../../src/observability/users/add-user.ts';
import { ensureDashboardBuild, screenshot, SCREENSHOTS, signedInPage } from '../helpers/browser.ts';
import { seedTriage, TRIAGE, TRIAGE_GENERATIONS } from '../helpers/prompt-versions.ts';
import { basicAuth } from '../helpers/public-api.ts';
import { baseConfig, startTestService } from '../helpers/service.ts';

const enc = encodeURIComponent;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** Scrolls the panel titled `title` to the top, below the page's fixed bar. */
const scrollToSection = (page: Page, title: string) =>
  page.getByRole('heading', { name: title }).evaluate((e) => {
    e.closest('section')!.scrollIntoView();
    window.scrollBy(0, -60);
  });

t.test('prompt versions, diffs, labels and usage in the browser', async (t) => {
  await ensureDashboardBuild();
  const s = await startTestService(t, baseConfig());
  const password = 'correct horse battery staple';
  for (const role of ['owner', 'viewer'] as const)
    await addUser(
      s.service.db,
      { email: `${role}@example.test`, name: role, role, password },
      { actor: 'test', organizationId: 'default' },
    );
  const apiKey = await seedTriage(s);
  const productionVersion = async () => {
    const r = await fetch(`${s.adminUrl}/api/public/v2/prompts/${enc(TRIAGE)}?label=production`, {
      headers: { authorization: basicAuth(apiKey) },
    });
    return ((await r.json()) as { version: number }).version;
  };

  const { page, pageErrors, dash } = await signedInPage(t, s.adminUrl, 'owner@example.test', password);
  page.on('dialog', (d) => void d.accept());
  const promptPage = `${dash}#/p/default/prompts/${enc(TRIAGE)}`;
  const diffLines = (kind: 'add' | 'del') =>
    page.getByTestId('prompt-diff').locator(`.diff > .${kind}`).allTextContents();

  await t.test('the newest version, diffed against the one before it', async (t) => {
    await page.getByRole('link', { name: 'Prompts', exact: true }).click();
    await page.getByRole('link', { name: 'triage' }).click();
    await page.getByTestId('prompt-diff').waitFor();
    t.equal(await page.getByTestId('diff-target').inputValue(), '3', 'the newest version is selected');
    t.equal(await page.getByTestId('diff-base').inputValue(), '2', 'compared with its predecessor');
    t.same(await diffLines('add'), ['+ Example: see help.example.com/refunds'], 'the added message');
    t.same(await diffLines('del'), [], 'nothing removed');
    const blocks = page.getByTestId('diff-message');
    t.same(
      await blocks.locator('.diff-head').allTextContents(),
      ['systemunchanged', 'assistantadded', 'userunchanged'],
      'each message with its role and what happened to it',
    );
    t.equal(await page.getByTestId('config-diff').locator('.diff-head').textContent(), 'configunchanged');
  });

  await t.test('any two versions: v1 against v2, messages and config marked line by line', async (t) => {
    await page.getByTestId('diff-target').selectOption('2');
    await page.getByTestId('diff-base').selectOption('1');
    await page.getByTestId('diff-summary').filter({ hasText: 'from v1 to v2' }).waitFor();
    t.same(await diffLines('del'), ['- Answer briefly.'], 'the removed system line');
    // The config's keys in the order the store keeps them (jsonb: shorter keys first).
    t.same(
      await diffLines('add'),
      ['+ Answer briefly and kindly.', '+ Cite the help center.', '+   "model": "gpt-4o-mini",'],
      'the added system lines and config line',
    );
    const marked = (kind: 'add' | 'del') => page.getByTestId('prompt-diff').locator(`.${kind} .word`).allTextContents();
    t.equal((await marked('add')).join(''), ' and kindly', 'the words added to the changed line are marked');
    t.same(await marked('del'), [], 'it lost none');
    t.match(await page.getByTestId('diff-summary').textContent(), '+3−1 lines from v1 to v2 · config changed');
    t.equal(await page.getByTestId('config-diff').locator('.diff-head').textContent(), 'configchanged');
    t.match(page.url(), /v=2&base=1|base=1&v=2/, 'the comparison is in the address');
    await page.setViewportSize({ width: 1280, height: 800 });
    await scrollToSection(page, 'Compare versions');
    await page.screenshot({ path: join(SCREENSHOTS, 'dashboard-prompt-diff.png') });
    await page.setViewportSize({ width: 1360, height: 900 });
    await screenshot(page, 'prompt-diff');
  });

  await t.test('per version: its generations, latency, tokens and cost, linking to their traces', async (t) => {
    await page.goto(`${promptPage}?v=1`);
    await page.getByTestId('version-generations').waitFor();
    const v1 = TRIAGE_GENERATIONS.filter((g) => g.version === 1);
    t.equal(await page.getByTestId('usage-generations').textContent(), '3');
    t.equal(await page.getByTestId('usage-avg-latency').textContent(), ms(3000));
    t.equal(await page.getByTestId('usage-p50-latency').textContent(), ms(2000));
    t.equal(
      await page.getByTestId('usage-tokens').textContent(),
      `${num(sum(v1.map((g) => g.input)))} / ${num(sum(v1.map((g) => g.output)))}`,
    );
    t.equal(await page.getByTestId('usage-cost').textContent(), usd(sum(v1.map((g) => g.cost))));
    t.same(
      await page.getByTestId('generation-trace').allTextContents(),
      ['answer 2', 'answer 1', 'answer 0'],
      "v1's generations, newest first",
    );
    const rows = page.getByTestId('version-metrics').locator('tbody tr');
    const row = async (v: number) =>
      (
        await rows
          .and(page.locator(`[data-version="${v}"]`))
          .locator('td')
          .allTextContents()
      ).join(' | ');
    t.match(await row(1), `| 3 | ${ms(3000)} | ${ms(2000)} | 60 | 30 | ${usd(0.875)} |`, 'v1 in the table');
    t.match(await row(2), `| 1 | ${ms(1500)} | ${ms(1500)} | 40 | 20 | ${usd(0.0625)} |`, 'v2');
    t.match(await row(3), `| 0 | – | – | 0 | 0 | ${usd(0)} | –`, 'v3: not used yet');
    await page.setViewportSize({ width: 1280, height: 800 });
    await scrollToSection(page, 'Generations using v1');
    await page.screenshot({ path: join(SCREENSHOTS, 'dashboard-prompt-versions.png') });
    await page.setViewportSize({ width: 1360, height: 900 });
    await screenshot(page, 'prompt-versions');
    await page.getByTestId('generation-trace').first().click();
    await page.waitForURL('**#/p/default/traces/triage-2');
    t.pass("a generation opens its trace's page");
  });

  await t.test('production moved from v1 to v2 in the page, read back through the public API', async (t) => {
    t.equal(await productionVersion(), 1, 'production starts on v1');
    await page.goto(`${promptPage}?v=2`);
    await page.getByTestId('promote-production').click();
    await page.getByTestId('remove-label-production').waitFor();
    t.equal(await productionVersion(), 2, 'the public API serves v2 for production');
    t.notMatch(
      await page.getByTestId('versions').locator('li[data-version="1"]').textContent(),
      /production/,
      'v1 lost the label',
    );

    await page.getByTestId('label-input').fill('staging');
    t.equal(await page.getByTestId('label-move-note').textContent(), 'On v3 now: adding it here moves it.');
    await page.getByTestId('add-label').click();
    await page.getByTestId('remove-label-staging').waitFor();
    t.notMatch(await page.getByTestId('versions').locator('li[data-version="3"]').textContent(), /staging/);
    await page.getByTestId('label-input').fill('canary');
    await page.getByTestId('label-input').press('Enter');
    await page.getByTestId('remove-label-canary').click();
    await page.getByTestId('remove-label-canary').waitFor({ state: 'detached' });
    t.match(
      await page.getByTestId('versions').locator('li[data-version="2"]').textContent(),
      /productionstaging/,
      'v2 keeps production and staging, canary added and removed',
    );
    await screenshot(page, 'prompt-labels');
  });

  await t.test('a viewer sees the labels but no control to change them', async (t) => {
    const viewer = await signedInPage(t, s.adminUrl, 'viewer@example.test', password);
    await viewer.page.goto(`${viewer.dash}#/p/default/prompts/${enc(TRIAGE)}?v=2`);
    await viewer.page.getByTestId('version-labels').waitFor();
    t.match(await viewer.page.getByTestId('version-labels').textContent(), /production/);
    for (const id of ['label-input', 'add-label', 'promote-production', 'remove-label-production'])
      t.equal(await viewer.page.getByTestId(id).count(), 0, `no ${id}`);
    t.same(viewer.pageErrors, []);
  });

  t.same(pageErrors, [], 'no script errors');
});
