// The scores, score configs and annotation queue pages in a real browser (Debian chromium through playwright-core):
// the score list's filters and keyset pages, creating and archiving a config, working through a queue with the
// keyboard only (the stored score and the item's status read back through the public API), adding a score from the
// trace page, and a viewer who sees no write controls and whose writes are refused. Screenshots go to
// test-artifacts/screenshots/.
import t from 'tap';
import { addUser } from '../../src/observability/users/add-user.ts';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ensureDashboardBuild, SCREENSHOTS, screenshot, signedInPage } from '../helpers/browser.ts';
import { signIn } from '../helpers/dashboard.ts';
import { callAdmin } from '../helpers/public-api.ts';
import { BULK_SCORES, seedScores } from '../helpers/score-fixtures.ts';
import { baseConfig, startTestService } from '../helpers/service.ts';
import { ALICE_TURNS } from '../helpers/session-traces.ts';

const PASSWORD = 'correct horse battery staple';
const [A1, A2, A3] = ALICE_TURNS.map((x) => x.id) as [string, string, string];

/** What the 1280×800 window shows (the pictures of docs/dashboard.md), beside the full page. */
async function shots(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-window.png`) });
}

t.test('scores, score configs and annotation queues in the browser', async (t) => {
  await ensureDashboardBuild();
  const s = await startTestService(t, baseConfig());
  for (const [email, role] of [
    ['owner@example.test', 'owner'],
    ['viewer@example.test', 'viewer'],
  ] as const)
    await addUser(s.service.db, { email, role, password: PASSWORD }, { actor: 'test', organizationId: 'default' });
  const { auth, quality } = await seedScores(s);
  const { page, pageErrors } = await signedInPage(t, s.adminUrl, 'owner@example.test', PASSWORD);
  await page.setViewportSize({ width: 1280, height: 800 });
  const rows = page.getByTestId('scores').locator('tbody tr');
  const names = () => rows.locator('td:nth-child(2)').allTextContents();

  await t.test('the score list: filters and keyset pages', async (t) => {
    await page.getByRole('link', { name: 'Scores', exact: true }).click();
    await rows.first().waitFor();
    t.equal(await rows.count(), 50, 'a first page of 50');
    t.same(
      (await names()).slice(0, 6),
      ['accuracy', 'accuracy', 'tone', 'quality', 'toxicity', 'bulk'],
      'newest first',
    );
    const first = (await rows.nth(0).locator('td').allTextContents()).join(' | ');
    t.match(
      first,
      /accuracy \| 0\.9 \| NUMERIC \| API \| greetturn-a1 \| spot on/,
      'value, type, source, trace name and id, comment',
    );
    t.same(
      await page.locator('#score-names option').evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value)),
      ['accuracy', 'bulk', 'quality', 'tone', 'toxicity'],
      "the name filter offers the project's score names",
    );
    await page.getByTestId('scores-older').click();
    await page.getByTestId('pager-range').filter({ hasText: '51–' }).waitFor();
    t.equal(await rows.count(), 6 + BULK_SCORES - 50, 'the older page holds the rest');
    t.equal(await page.getByTestId('scores-older').isDisabled(), true, 'and is the last');

    const filters = page.getByTestId('score-filters');
    const filter = async (fill: Record<string, string>) => {
      await page.goto(`${s.adminUrl}/dashboard/#/p/default/scores`);
      await rows.first().waitFor();
      for (const [name, value] of Object.entries(fill)) {
        const control = filters.locator(`[name=${name}]`);
        if ((await control.evaluate((el) => el.tagName)) === 'SELECT') await control.selectOption(value);
        else await control.fill(value);
      }
      await filters.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/scores\?/);
      await page.getByTestId('scores').or(page.locator('.empty')).first().waitFor();
    };
    await filter({ name: 'accuracy' });
    t.same(await names(), ['accuracy', 'accuracy', 'accuracy'], 'by name');
    await filter({ name: 'accuracy', window: '24h' });
    t.equal(await rows.count(), 2, 'by time window: the ten-day-old score is left out');
    await filter({ name: 'accuracy', valueMin: '0.5' });
    t.same(await rows.locator('td:nth-child(3)').allTextContents(), ['0.9', '0.7'], 'by value range');
    await filter({ source: 'ANNOTATION' });
    t.same(await names(), ['quality'], 'by source: annotation');
    await filter({ source: 'EVAL' });
    t.same(await names(), ['toxicity'], 'by source: eval');
    await filter({ dataType: 'CATEGORICAL' });
    t.same(await rows.locator('td:nth-child(3)').allTextContents(), ['friendly'], 'by data type');
  });

  let verdictId = '';
  await t.test('score configs: create one and archive it', async (t) => {
    await page.goto(`${s.adminUrl}/dashboard/#/p/default/score-configs`);
    const form = page.getByTestId('score-config-form');
    await form.locator('[name=name]').fill('verdict');
    await form.locator('[name=dataType]').selectOption('CATEGORICAL');
    await form.locator('[name=categories]').fill('good = 1\nbad = 0');
    await form.getByRole('button', { name: 'Create score config' }).click();
    const row = page.locator('[data-config=verdict]');
    await row.waitFor();
    t.match(await row.textContent(), /verdictCATEGORICALgood \(1\), bad \(0\).*active/, 'listed with its categories');
    await form.locator('[name=name]').fill('helpful');
    await form.locator('[name=dataType]').selectOption('BOOLEAN');
    await form.getByRole('button', { name: 'Create score config' }).click();
    await page.locator('[data-config=helpful]').waitFor();
    await form.locator('[name=name]').fill('old');
    await form.getByRole('button', { name: 'Create score config' }).click();
    await page.locator('[data-config=old]').getByRole('button', { name: 'Archive' }).click();
    await page.locator('[data-config=old]').getByText('archived').waitFor();
    await shots(page, 'dashboard-score-configs');
    const configs = await callAdmin(s, 'GET', '/api/public/score-configs', auth);
    const byName = Object.fromEntries(configs.body.data.map((c: any) => [c.name, c]));
    t.same(byName.verdict.categories, [
      { label: 'good', value: 1 },
      { label: 'bad', value: 0 },
    ]);
    t.equal(byName.old.isArchived, true, 'archived in the store');
    verdictId = byName.verdict.id;
    await page.locator('[data-config=old]').getByRole('button', { name: 'Restore' }).click();
    await page.locator('[data-config=old]').getByText('active').waitFor();
    t.pass('and restored');
    t.same(byName.helpful.categories, [
      { label: 'True', value: 1 },
      { label: 'False', value: 0 },
    ]);
  });

  await t.test('an annotation queue, worked with the keyboard only', async (t) => {
    const configs = await callAdmin(s, 'GET', '/api/public/score-configs', auth);
    const helpful = configs.body.data.find((c: any) => c.name === 'helpful');
    const queue = await callAdmin(s, 'POST', '/api/public/annotation-queues', auth, {
      name: 'support review',
      description: 'Check the bot answers',
      scoreConfigIds: [quality.id, verdictId, helpful.id],
    });
    const items: any[] = [];
    for (const [objectId, objectType] of [
      [A1, 'TRACE'],
      [`${A2}-gen`, 'OBSERVATION'],
      [A3, 'TRACE'],
    ])
      items.push(
        (
          await callAdmin(s, 'POST', `/api/public/annotation-queues/${queue.body.id}/items`, auth, {
            objectId,
            objectType,
          })
        ).body,
      );
    await page.getByRole('link', { name: 'Annotation queues' }).first().click();
    const listed = page.locator('[data-queue="support review"]');
    await listed.waitFor();
    t.match(await listed.textContent(), /support reviewCheck the bot answersqualityverdicthelpful30/);
    await screenshot(page, 'dashboard-annotation-queues');
    await listed.getByTestId('queue-link').click();
    await page.getByTestId('queue-item').waitFor();
    t.equal(await page.getByTestId('queue-item').getAttribute('data-item'), items[0].id, 'the oldest item first');
    t.match(await page.getByTestId('item-input').textContent(), ALICE_TURNS[0]!.question, "the trace's input");
    t.match(await page.getByTestId('item-output').textContent(), ALICE_TURNS[0]!.answer, 'and its output');
    t.match(await page.getByTestId('key-hints').textContent(), /Enter.*save the scores and complete/);

    await page.keyboard.type('4'); // quality, focused first
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('2'); // verdict: bad
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('1'); // helpful: True
    await page.keyboard.press('c');
    await page.keyboard.type('polite but vague');
    await shots(page, 'dashboard-annotation-queue');
    await page.keyboard.press('Enter');
    await page.getByTestId('queue-counts').filter({ hasText: '2 pending · 1 completed' }).waitFor();
    await page.locator(`[data-item="${items[1].id}"]`).waitFor();
    t.pass('saved, and the next item (the observation) shown');
    await page.keyboard.type('2'); // quality alone
    await page.keyboard.press('Enter');
    await page.locator(`[data-item="${items[2].id}"]`).waitFor();
    await page.keyboard.press('s');
    await page.getByText('No pending items after this one.').waitFor();
    t.pass('S skips the third item: none is left after it');
    t.equal(await page.getByTestId('queue-counts').textContent(), '1 pending · 2 completed');
    const itemRows = page.getByTestId('queue-items').locator('tbody tr');
    await page.locator(`[data-item-row="${items[1].id}"]`).getByText('completed').waitFor();
    t.same(
      await itemRows.locator('td:nth-child(4)').allTextContents(),
      ['completed', 'completed', 'pending'],
      'the items table follows',
    );
    t.equal(
      await page.locator(`[data-item-row="${items[1].id}"] td:nth-child(3)`).textContent(),
      `${A2} › ${A2}-gen`,
      'an observation item links its trace',
    );
    await page.getByRole('group', { name: 'Item status' }).getByRole('button', { name: 'Pending' }).click();
    await page.locator(`[data-item-row="${items[0].id}"]`).waitFor({ state: 'detached' });
    t.same(await itemRows.evaluateAll((r) => r.map((x) => x.getAttribute('data-item-row'))), [items[2].id]);

    const scores = await callAdmin(s, 'GET', `/api/public/scores?queueId=${queue.body.id}`, auth);
    const ofObservation = scores.body.data.filter((x: any) => x.observationId !== null);
    t.same(
      ofObservation.map((x: any) => [x.name, x.value, x.traceId, x.observationId, x.source]),
      [['quality', 2, A2, `${A2}-gen`, 'ANNOTATION']],
      "the observation item's score: of the observation, in its trace",
    );
    const stored = Object.fromEntries(
      scores.body.data.filter((x: any) => x.observationId === null).map((x: any) => [x.name, x]),
    );
    t.same(Object.keys(stored).sort(), ['helpful', 'quality', 'verdict']);
    const api = await signIn(s, 'owner@example.test', PASSWORD);
    const owner = api.user;
    for (const x of Object.values(stored) as any[]) {
      t.equal(x.source, 'ANNOTATION', `${x.name}: an annotation`);
      t.equal(x.authorUserId, owner.id, `${x.name}: by the reviewer`);
      t.equal(x.traceId, A1, `${x.name}: of the item's trace`);
      t.equal(x.comment, 'polite but vague');
    }
    t.equal(stored.quality.value, 4);
    const byAuthor = await callAdmin(
      s,
      'GET',
      `/api/public/v3/scores?authorUserId=${owner.id}&fields=annotation`,
      auth,
    );
    t.same(
      byAuthor.body.data.map((x: any) => [x.authorUserId, x.queueId]),
      Array(4).fill([owner.id, queue.body.id]),
      "v3: the reviewer's four scores by authorUserId",
    );
    t.equal(stored.verdict.stringValue, 'bad');
    t.equal(stored.helpful.value, 1);
    const status = async (i: number) =>
      (await callAdmin(s, 'GET', `/api/public/annotation-queues/${queue.body.id}/items/${items[i].id}`, auth)).body
        .status;
    t.same([await status(0), await status(1), await status(2)], ['COMPLETED', 'COMPLETED', 'PENDING']);

    await callAdmin(s, 'POST', `/api/public/annotation-queues/${queue.body.id}/items`, auth, {
      objectId: 'conv',
      objectType: 'SESSION',
    });
    const next = await api.call(
      'GET',
      `/projects/default/annotation-queues/${queue.body.id}/next?after=${items[2].id}`,
    );
    t.same(
      [next.body.object.kind, next.body.object.turns.map((x: any) => x.traceId)],
      ['session', [A1, A2, A3]],
      "a session item: the session's traces in order",
    );

    // A completed item reopened: its scores shown, one changed with the keyboard, saved in place.
    await page.getByRole('group', { name: 'Item status' }).getByRole('button', { name: 'All' }).click();
    await page.locator(`[data-item-row="${items[0].id}"]`).getByTestId('open-item').click();
    await page.locator(`[data-item="${items[0].id}"]`).waitFor();
    t.equal(await page.getByRole('spinbutton', { name: 'quality' }).inputValue(), '4', 'its quality shown');
    t.equal(
      await page
        .getByRole('radiogroup', { name: 'verdict' })
        .getByRole('radio', { checked: true })
        .getAttribute('data-choice'),
      'bad',
      'its verdict shown',
    );
    t.equal(await page.getByRole('textbox', { name: 'Comment' }).inputValue(), 'polite but vague', 'its comment shown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('1'); // verdict: good
    await page.keyboard.press('Enter');
    await page.locator(`[data-item="${items[2].id}"]`).waitFor();
    t.equal(await page.getByTestId('queue-counts').textContent(), '1 pending · 2 completed', 'the counts stay');
    const again = await callAdmin(s, 'GET', `/api/public/scores?queueId=${queue.body.id}&traceId=${A1}`, auth);
    const changed = again.body.data.filter((x: any) => x.observationId === null);
    const byName = Object.fromEntries(changed.map((x: any) => [x.name, x]));
    t.equal(changed.length, 3, 'still three scores of the item');
    t.same(
      [byName.quality.id, byName.verdict.id, byName.helpful.id],
      [stored.quality.id, stored.verdict.id, stored.helpful.id],
      'the same scores, changed in place',
    );
    t.equal(byName.verdict.stringValue, 'good', 'the verdict changed');
    t.equal(byName.quality.value, 4, 'the quality kept');
    const foreign = await api.call(
      'POST',
      `/projects/default/annotation-queues/${queue.body.id}/items/${items[2].id}/complete`,
      {
        scores: [{ id: 'eval-1', configId: quality.id, name: 'quality', value: 1 }],
      },
    );
    t.same([foreign.status, foreign.body.error.code], [400, 'invalid_request'], "another score's id is refused");
  });

  await t.test('a score added on the trace page, to a selected observation', async (t) => {
    await page.goto(`${s.adminUrl}/dashboard/#/p/default/traces/${A3}`);
    await page.getByTestId('add-score').click();
    await page.locator(`[data-span="${A3}-gen"]`).click();
    t.equal(await page.getByTestId('annotate-target').inputValue(), `${A3}-gen`, 'the selected observation is picked');
    await page.getByTestId('annotate-config').selectOption({ label: 'verdict' });
    await page.getByTestId('annotate-value').getByRole('radio', { name: 'good' }).click();
    await screenshot(page, 'dashboard-trace-annotate-form');
    await page.getByTestId('annotate-save').click();
    await page.getByTestId('scores').locator('tbody tr').filter({ hasText: 'verdict' }).waitFor();
    t.match(await page.getByTestId('scores').textContent(), /verdictgoodCATEGORICALANNOTATION/, 'shown on the trace');
    await screenshot(page, 'dashboard-trace-add-score');

    await page.getByTestId('add-to-queue').click();
    await page.getByTestId('queue-picker').selectOption({ label: 'support review' });
    await page.getByTestId('queue-add').click();
    await page.getByTestId('queued').getByRole('link', { name: 'support review' }).waitFor();
    const queues = await callAdmin(s, 'GET', '/api/public/annotation-queues', auth);
    const queued = await callAdmin(s, 'GET', `/api/public/annotation-queues/${queues.body.data[0].id}/items`, auth);
    t.same(
      queued.body.data.slice(-1).map((i: any) => [i.objectId, i.objectType, i.status]),
      [[A3, 'TRACE', 'PENDING']],
      '"Add to queue" put the trace into the queue',
    );
    const scores = await callAdmin(s, 'GET', `/api/public/scores?traceId=${A3}`, auth);
    t.same(
      scores.body.data.map((x: any) => [x.name, x.observationId, x.source, x.configId]),
      [['verdict', `${A3}-gen`, 'ANNOTATION', verdictId]],
    );
  });

  await t.test('the annotations in the score list, with their author', async (t) => {
    await page.goto(`${s.adminUrl}/dashboard/#/p/default/scores?source=ANNOTATION`);
    await rows.filter({ hasText: 'verdict' }).first().waitFor();
    t.same(
      (await names()).sort(),
      ['helpful', 'quality', 'quality', 'quality', 'verdict', 'verdict'],
      'the seeded one and ours',
    );
    const authors = await rows.locator('td:nth-child(7)').allTextContents();
    t.equal(authors.filter((a) => a.startsWith('owner@example.test')).length, 5, "the dashboard's five, by the owner");
    t.match(
      await rows.filter({ hasText: 'verdict' }).first().locator('td:nth-child(6)').textContent(),
      `thanks${A3} › ${A3}-gen`,
      'the trace page score: of the observation',
    );
    t.match(authors.join('|'), 'polite but vague', 'with the comment');
    await page.goto(`${s.adminUrl}/dashboard/#/p/default/scores`);
    await rows.first().waitFor();
    await shots(page, 'dashboard-scores');
    t.same(pageErrors, [], 'no script errors');
  });

  await t.test('a viewer: no write controls, and the write routes refuse', async (t) => {
    const viewer = await signedInPage(t, s.adminUrl, 'viewer@example.test', PASSWORD);
    const v = viewer.page;
    await v.goto(`${s.adminUrl}/dashboard/#/p/default/score-configs`);
    await v.locator('[data-config=verdict]').waitFor();
    t.equal(await v.getByTestId('score-config-form').count(), 0, 'no create form');
    t.equal(await v.getByTestId('archive-config').count(), 0, 'no archive buttons');
    await v.goto(`${s.adminUrl}/dashboard/#/p/default/annotation-queues`);
    await v.getByTestId('queue-link').click();
    await v.getByTestId('queue-item').waitFor();
    t.equal(await v.getByTestId('complete-item').count(), 0, 'no save in the queue');
    await v.goto(`${s.adminUrl}/dashboard/#/p/default/traces/${A1}`);
    await v.getByTestId('scores').waitFor();
    t.equal(await v.getByTestId('add-score').count(), 0, 'no "Add score" on a trace');

    const api = await signIn(s, 'viewer@example.test', PASSWORD);
    const queues = await api.call('GET', '/projects/default/annotation-queues');
    const q = queues.body.data[0];
    const next = await api.call('GET', `/projects/default/annotation-queues/${q.id}/next`);
    for (const [method, path, body] of [
      ['POST', '/projects/default/scores', { traceId: A1, name: 'x', value: 1 }],
      ['POST', '/projects/default/score-configs', { name: 'x', dataType: 'NUMERIC' }],
      ['PUT', `/projects/default/score-configs/${verdictId}/archived`, { isArchived: true }],
      ['POST', '/projects/default/annotation-queues', { name: 'x' }],
      ['POST', `/projects/default/annotation-queues/${q.id}/items`, { objectId: A1, objectType: 'TRACE' }],
      ['POST', `/projects/default/annotation-queues/${q.id}/items/${next.body.item.id}/complete`, { scores: [] }],
    ] as const) {
      const r = await api.call(method, path, body);
      t.equal(r.status, 403, `${method} ${path}`);
      t.equal(r.body.error.code, 'permission_denied');
    }
  });
});
