// The trace list in a real browser (Debian chromium through playwright-core) at 1280×800, over five traces sent
// through the Langfuse ingestion API with different names, users, sessions, tags, latencies, costs and levels: each
// row's input and output previews (the user's question and the answer; a long question cut, whole in its title);
// each filter applied through the form, kept in the address (a reload lists the same rows); the orders by start,
// latency and cost chosen by clicking their headers (aria-sort follows); short columns on one line; and paging a
// longer list by latency forwards and back. The screenshot dashboard-traces.png is the one of docs/images/.
import t from 'tap';
import type { Page } from 'playwright-core';
import { addUser } from '../../src/observability/users/add-user.ts';
import { ensureDashboardBuild, screenshot, signedInPage } from '../helpers/browser.ts';
import { generateTraces } from '../helpers/generated-traces.ts';
import { baseConfig, startTestService } from '../helpers/service.ts';
import {
  ascendingBy,
  LISTED,
  LONG_QUESTION,
  newestFirst,
  seedListedTraces,
  type ListedTrace,
} from '../helpers/trace-list-seed.ts';

const PREVIEW_CHARS = 240;

/** Opens `address` unless the page shows it already (the same address draws nothing anew). */
async function open(page: Page, address: string) {
  if (page.url() !== address) await rowsAfter(page, () => page.goto(address));
}

/** Runs `change`, then answers the ids of the list's rows once the page shows a list drawn after it. */
async function rowsAfter(page: Page, change: () => Promise<unknown>): Promise<string[]> {
  await page.getByTestId('traces').evaluate((e) => e.setAttribute('data-stale', ''));
  await change();
  const fresh = page.locator('[data-testid="traces"]:not([data-stale])');
  await fresh.waitFor();
  return fresh.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')!));
}

t.test('the trace list in the browser', async (t) => {
  await ensureDashboardBuild();
  const s = await startTestService(t, baseConfig());
  const password = 'correct horse battery staple';
  await addUser(
    s.service.db,
    { email: 'owner@example.test', name: 'The owner', role: 'owner', password },
    { actor: 'test', organizationId: 'default' },
  );
  await seedListedTraces(s);
  const { page, pageErrors, dash } = await signedInPage(t, s.adminUrl, 'owner@example.test', password);
  await page.setViewportSize({ width: 1280, height: 800 });
  const list = `${dash}#/p/default/traces`;
  const rows = () => page.getByTestId('traces').locator('tbody tr');
  const ids = () => rows().evaluateAll((rs) => rs.map((r) => r.getAttribute('data-id')!));
  const row = (id: string) => page.locator(`tr[data-id="${id}"]`);

  await t.test('every trace, newest first, with previews of its input and output', async (t) => {
    await page.goto(list);
    await rows().first().waitFor();
    t.same(await ids(), newestFirst());
    for (const x of LISTED) {
      t.equal(await row(x.id).getByTestId('trace-output-preview').textContent(), x.answer, `${x.id}: the answer`);
      if (x.question !== LONG_QUESTION)
        t.equal(await row(x.id).getByTestId('trace-input-preview').textContent(), x.question, `${x.id}: the question`);
    }
    const long = row('tl-summarize-1').getByTestId('trace-input-preview');
    const title = (await long.getAttribute('title'))!;
    t.equal(title.length, PREVIEW_CHARS, 'the long question, cut by the server, whole in the title');
    t.ok(LONG_QUESTION.startsWith(title.slice(0, 40)), 'from its start');
    t.ok(
      await long.evaluate((e) => e.closest('td')!.scrollWidth > e.closest('td')!.clientWidth),
      'and cut with an ellipsis in its cell',
    );
    await screenshot(page, 'dashboard-traces');
  });

  await t.test('short columns stay on one line at 1280 pixels', async (t) => {
    const cells = row('tl-checkout-2').locator('td.col-time, td.col-status, td.num');
    t.equal(await cells.count(), 5, 'started, status, latency, tokens, cost');
    for (const cell of await cells.all()) {
      // A text that wraps has a box for each of its lines.
      const lines = await cell.evaluate((td) => {
        const texts = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
        const counts: number[] = [];
        for (let n = texts.nextNode(); n; n = texts.nextNode()) {
          const range = document.createRange();
          range.selectNodeContents(n);
          counts.push(range.getClientRects().length);
        }
        return counts;
      });
      const text = await cell.textContent();
      t.ok(lines.length > 0 && lines.every((n) => n === 1), `${text}: on one line`);
      const { content, twoLines } = await cell.evaluate((td) => {
        const style = getComputedStyle(td);
        return {
          content: td.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom),
          twoLines: 2 * 1.2 * parseFloat(style.fontSize),
        };
      });
      t.ok(content < twoLines, `${text}: its cell less than two lines high (${content}px)`);
    }
  });

  /** Fills the form from the full list, sends it, and answers the rows listed, after checking the address. */
  const filtered = async (fill: () => Promise<void>, inAddress: RegExp, from = list) => {
    await open(page, from);
    await fill();
    const shown = await rowsAfter(page, () => page.getByRole('button', { name: 'Filter' }).click());
    t.match(page.url(), inAddress, `kept in the address (${inAddress})`);
    const reloaded = await rowsAfter(page, () => page.reload());
    t.same(reloaded, shown, 'the same rows after a reload');
    return shown;
  };
  const fill = (label: string, value: string) => () => page.getByLabel(label).fill(value);
  const choose = (label: string, value: string) => async () => {
    await page.getByLabel(label).selectOption(value);
  };
  const only = (keep: (x: ListedTrace) => boolean) => newestFirst(keep);

  await t.test('each filter', async (t) => {
    t.same(
      await filtered(fill('Name contains', 'check'), /q=check/),
      only((x) => x.name === 'checkout'),
      'name',
    );
    t.same(
      await filtered(fill('User', 'bob'), /userId=bob/),
      only((x) => x.userId === 'bob'),
      'user',
    );
    t.same(
      await filtered(fill('Session', 'sess-1'), /sessionId=sess-1/),
      only((x) => x.sessionId === 'sess-1'),
      'session',
    );
    t.same(
      await filtered(fill('Tags (k or k:v, comma-separated)', 'prod, team:a'), /tags=prod/),
      only((x) => x.tags.includes('prod') && x.tags.includes('team:a')),
      'tags',
    );
    t.same(await filtered(choose('Level', 'ERROR'), /level=ERROR/), ['tl-checkout-2'], 'level error');
    t.same(
      await filtered(choose('Level', 'WARNING'), /level=WARNING/),
      only((x) => x.level !== 'DEFAULT'),
      'level warning or error',
    );
    t.same(await filtered(choose('Status', 'error'), /status=error/), ['tl-checkout-2'], 'status');
    t.same(
      await filtered(async () => {
        await page.getByLabel('Latency ≥ (s)').fill('0.5');
        await page.getByLabel('Latency ≤ (s)').fill('3');
      }, /minLatencyMs=500&maxLatencyMs=3000|maxLatencyMs=3000.*minLatencyMs=500/),
      only((x) => x.latencyMs >= 500 && x.latencyMs <= 3000),
      'latency between 0.5 and 3 seconds',
    );
    t.same(
      await filtered(async () => {
        await page.getByLabel('Cost ≥ ($)').fill('0.1');
        await page.getByLabel('Cost ≤ ($)').fill('0.5');
      }, /Cost=0\.[15]/),
      only((x) => x.cost >= 0.1 && x.cost <= 0.5),
      'cost between $0.10 and $0.50',
    );
    t.same(await page.getByLabel('Cost ≥ ($)').inputValue(), '0.1', 'the form shows the filter it lists');
  });

  await t.test('orders, by clicking column headers', async (t) => {
    await open(page, list);
    const header = (name: string) => page.getByRole('columnheader', { name: new RegExp(`^${name}`) });
    const sortOf = async () =>
      Object.fromEntries(
        await Promise.all(
          ['Started', 'Latency', 'Cost'].map(async (n) => [n, await header(n).getAttribute('aria-sort')]),
        ),
      );
    t.same(await sortOf(), { Started: 'descending', Latency: 'none', Cost: 'none' }, 'newest first by default');
    const click = (name: string) => rowsAfter(page, () => header(name).getByRole('button').click());
    const byLatency = ascendingBy((x) => x.latencyMs);
    const byCost = ascendingBy((x) => x.cost);
    t.same(await click('Latency'), [...byLatency].reverse(), 'slowest first');
    t.same(await sortOf(), { Started: 'none', Latency: 'descending', Cost: 'none' });
    t.match(page.url(), /sort=latency/);
    t.same(await click('Latency'), byLatency, 'a second click: fastest first');
    t.same(await sortOf(), { Started: 'none', Latency: 'ascending', Cost: 'none' });
    t.same(await click('Cost'), [...byCost].reverse(), 'most expensive first');
    t.same(await click('Cost'), byCost, 'cheapest first');
    t.same(await sortOf(), { Started: 'none', Latency: 'none', Cost: 'ascending' });
    t.same(await click('Started'), newestFirst(), 'newest first again');
    t.same(await click('Started'), newestFirst().reverse(), 'oldest first');
    t.same(await sortOf(), { Started: 'ascending', Latency: 'none', Cost: 'none' });
    t.same(
      await filtered(fill('User', 'alice'), /order=asc.*userId=alice/, `${list}?order=asc`),
      newestFirst((x) => x.userId === 'alice').reverse(),
      'a filter keeps the order',
    );
  });

  await t.test('a longer list, by latency, page by page and back', async (t) => {
    await generateTraces(s.service.db, { projectId: 'default', count: 120, from: '2026-01-01T00:00:00Z' });
    await open(page, `${list}?sort=latency&order=asc`);
    const range = () => page.getByTestId('pager-range').textContent();
    const first = await ids();
    t.equal(first.length, 50);
    t.same(first.slice(0, 2), ['tl-search-2', 'tl-checkout-2'], 'the fastest first');
    t.equal(await range(), '1–50 of 125');
    const second = await rowsAfter(page, () => page.getByRole('button', { name: 'Next →' }).click());
    t.equal(await range(), '51–100 of 125');
    const third = await rowsAfter(page, () => page.getByRole('button', { name: 'Next →' }).click());
    t.equal(await range(), '101–125 of 125');
    t.same(third.slice(-3), ['tl-checkout-1', 'tl-search-1', 'tl-summarize-1'], 'the slowest last');
    t.equal(new Set([...first, ...second, ...third]).size, 125, 'every trace once');
    t.ok(await page.getByRole('button', { name: 'Next →' }).isDisabled(), 'no page after the last');
    t.same(await rowsAfter(page, () => page.getByRole('button', { name: '← Previous' }).click()), second, 'back');
    t.same(await rowsAfter(page, () => page.getByRole('button', { name: '← Previous' }).click()), first);
    t.equal(await range(), '1–50 of 125');
  });

  t.same(pageErrors, [], 'no script errors');
});
