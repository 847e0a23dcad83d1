// The sessions and end-users pages in a real browser (Debian chromium through playwright-core), over two users'
// conversations sent through the Langfuse ingestion API and a gateway call made in alice's session with a budgeted
// key: the sessions list, a session's traces in order as chat turns with their inputs, outputs and totals and the
// key's budget, a turn's link to its trace page, the users list and a user's page with its charts, and Langfuse's
// session address landing on the session page. Screenshots go to test-artifacts/screenshots/.
import t from 'tap';
import { ms, num, usd } from '../../admin/dashboard/src/format.ts';
import { addUser } from '../../src/observability/users/add-user.ts';
import { ensureDashboardBuild, screenshot, signedInPage } from '../helpers/browser.ts';
import { baseConfig, startTestService } from '../helpers/service.ts';
import {
  ALICE_SESSION,
  ALICE_TURNS,
  BOB_SESSION,
  BOB_TURN,
  seedSessionTraces,
  sendTurns,
  sessionGatewayConfig,
} from '../helpers/session-traces.ts';
import { waitFor } from '../helpers/wait-for.ts';

const enc = encodeURIComponent;

t.test('sessions and end users in the browser', async (t) => {
  await ensureDashboardBuild();
  const s = await startTestService(t, baseConfig(sessionGatewayConfig()));
  const password = 'correct horse battery staple';
  await addUser(
    s.service.db,
    { email: 'owner@example.test', name: 'The owner', role: 'owner', password },
    { actor: 'test', organizationId: 'default' },
  );
  const { base, apiKey } = await seedSessionTraces(t, s);

  const { page, pageErrors } = await signedInPage(t, s.adminUrl, 'owner@example.test', password);
  const gatewayTrace: any = await waitFor('the gateway call traced in the session', async () => {
    const r = await page.request.get(
      `${s.adminUrl}/dashboard/api/projects/default/traces?sessionId=${enc(ALICE_SESSION)}`,
    );
    return ((await r.json()) as any).data.find((x: any) => x.source === 'gateway');
  });
  const aliceTokens = ALICE_TURNS.reduce((n, x) => n + x.tokens, 0) + gatewayTrace.tokens;

  await t.test('the sessions list', async (t) => {
    await page.getByRole('link', { name: 'Sessions', exact: true }).click();
    const rows = page.getByTestId('sessions').locator('tbody tr');
    await rows.first().waitFor();
    t.equal(await rows.count(), 2);
    const bob = (await rows.nth(0).locator('td').allTextContents()).join(' | ');
    t.match(bob, `${BOB_SESSION} | bob |`, 'the newest session first, with its user');
    t.match(bob, `| 1 | ${ms(BOB_TURN.durationMs)} |`, 'one trace, its duration');
    t.match(bob, `| ${BOB_TURN.tokens} | ${usd(BOB_TURN.cost)}`, 'its tokens and cost');
    const alice = (await rows.nth(1).locator('td').allTextContents()).join(' | ');
    t.match(alice, `${ALICE_SESSION} | alice |`);
    t.match(alice, `| 4 |`, 'three ingested turns and the gateway call');
    t.match(alice, `| ${num(aliceTokens)} |`);
    await screenshot(page, 'sessions-list');
  });

  await t.test('a session: its traces in order as a conversation, with totals and the key budget', async (t) => {
    await page.getByTestId('sessions').getByRole('link', { name: ALICE_SESSION }).click();
    await page.getByTestId('conversation').waitFor();
    const turns = page.getByTestId('session-turn');
    t.equal(await turns.count(), 4);
    t.same(
      await turns.getByTestId('trace-link').allTextContents(),
      [...ALICE_TURNS.map((x) => x.name), gatewayTrace.name ?? gatewayTrace.id],
      'in time order',
    );
    for (const [i, turn] of ALICE_TURNS.entries()) {
      const el = turns.nth(i);
      t.equal(await el.getByTestId('turn-input').textContent(), `user${turn.question}`, `turn ${i + 1}: the question`);
      t.equal(
        await el.getByTestId('turn-output').textContent(),
        `assistant${turn.answer}`,
        `turn ${i + 1}: the answer`,
      );
      t.match(await el.locator('.turn-head').textContent(), usd(turn.cost), `turn ${i + 1}: its cost`);
    }
    t.match(
      await turns.nth(3).getByTestId('turn-input').textContent(),
      /Summarise our chat/,
      'the gateway call: what was asked',
    );
    t.equal(await turns.nth(0).locator('details.earlier summary').textContent(), '1 earlier message');
    t.equal(await page.getByTestId('session-traces').textContent(), '4');
    t.equal(await page.getByTestId('session-tokens').textContent(), num(aliceTokens));
    t.equal(
      await page.getByTestId('session-latency').textContent(),
      ms(ALICE_TURNS.reduce((n, x) => n + x.durationMs, 0) + gatewayTrace.duration),
    );
    t.equal(
      await page.getByTestId('session-cost').textContent(),
      usd(ALICE_TURNS.reduce((n, x) => n + x.cost, 0) + gatewayTrace.cost),
    );
    const budget = (await page.getByTestId('session-budgets').locator('tbody tr').allTextContents()).join('\n');
    t.match(budget, /budgeted.*hard · total.*\$10\.00/, "the key's budget");
    t.match(
      await page.getByTestId('session-budgets-hint').textContent(),
      `gateway calls cost ${usd(gatewayTrace.cost)}`,
      "the session's own spend through the gateway",
    );
    await screenshot(page, 'session-page');

    await turns.nth(1).getByTestId('trace-link').click();
    await page.waitForURL(`**#/p/default/traces/${ALICE_TURNS[1]!.id}`);
    t.pass('a turn opens its trace page');
  });

  await t.test('the users list and a user page', async (t) => {
    await page.getByRole('link', { name: 'End users' }).click();
    const rows = page.getByTestId('end-users').locator('tbody tr');
    await rows.first().waitFor();
    t.same(await rows.locator('td:first-child').allTextContents(), ['alice', 'bob'], 'the most recently seen first');
    const alice = (await rows.nth(0).locator('td').allTextContents()).join(' | ');
    t.match(alice, /^alice \| 5 \| 1 \| /, 'five traces in one session');
    await screenshot(page, 'end-users-list');

    await rows.nth(0).getByRole('link', { name: 'alice' }).click();
    await page.getByTestId('user-traces').waitFor();
    t.equal(await page.getByTestId('user-traces').textContent(), '5');
    t.equal(await page.getByTestId('user-sessions').textContent(), '1');
    t.equal(await page.getByTestId('user-tokens').textContent(), num(aliceTokens + ALICE_TURNS[0]!.tokens));
    for (const chart of ['user-activity-chart', 'user-tokens-chart', 'user-cost-chart'])
      await page.getByTestId(chart).locator('canvas').waitFor();
    t.pass('the three charts are drawn');
    t.match(await page.getByTestId('user-sessions-table').textContent(), ALICE_SESSION);
    t.equal(await page.getByTestId('user-latest-traces').locator('tbody tr').count(), 5);
    t.equal(
      await page.getByTestId('user-traces-link').getAttribute('href'),
      '#/p/default/traces?userId=alice',
      "a link to the user's traces",
    );
    await screenshot(page, 'end-user-page');
  });

  await t.test("Langfuse's session address opens the session page", async (t) => {
    await page.goto(`${s.adminUrl}/project/default/sessions/${enc(ALICE_SESSION)}`);
    await page.getByTestId('conversation').waitFor();
    t.equal(await page.getByRole('heading', { level: 1 }).textContent(), `Session ${ALICE_SESSION}`);
  });

  // Page timing, reported and not asserted: a session of 200 turns, from the address to the last turn drawn.
  await t.test('a session of 200 traces', async (t) => {
    const turns = Array.from({ length: 200 }, (_, i) => ({
      turn: { ...BOB_TURN, id: `long-${i}`, name: `turn ${i}`, startMs: -30 * 60_000 + i * 1000 },
      userId: 'carol',
      sessionId: 'long-conversation',
    }));
    await sendTurns(s.adminUrl, apiKey, base, turns);
    await page.goto(`${s.adminUrl}/dashboard/#/p/default/metrics`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    const started = Date.now();
    await page.goto(`${s.adminUrl}/dashboard/#/p/default/sessions/long-conversation`);
    await page.getByTestId('session-turn').nth(199).waitFor();
    t.comment(`a session of 200 traces rendered in ${Date.now() - started} ms`);
    t.equal(await page.getByTestId('session-traces').textContent(), '200');
  });

  t.same(pageErrors, [], 'no script errors');
});
