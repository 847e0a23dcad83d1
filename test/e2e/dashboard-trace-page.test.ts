// The trace page in a real browser (Debian chromium through playwright-core) for every kind of trace: an agent trace
// sent through the Langfuse ingestion API (nested spans, a generation, tags, user, session) shows each observation's
// input, output, usage and level when selected, its tags as a list and its user and session as links to the filtered
// trace list; a gateway call made with a traceparent of that trace appears in its tree with its attempt and its
// guardrail verdict; a gateway
// trace keeps its gateway cards; a trace of 2,000 observations shows every one (its render time is printed, not
// asserted). Screenshots go to test-artifacts/screenshots/.
import t from 'tap';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { addUser } from '../../src/observability/users/add-user.ts';
import { ensureDashboardBuild, screenshot, signedInPage } from '../helpers/browser.ts';
import { basicAuth } from '../helpers/public-api.ts';
import { baseConfig, chatBody, startTestService, TEST_KEY } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait-for.ts';

const TRACE = 'a7'.repeat(16);
// Span ids of 16 hex digits, so a traceparent can name the plan span.
const PLAN = 'b8'.repeat(8);
const RETRIEVE = 'c9'.repeat(8);
const DRAFT = 'd0'.repeat(8);
const CHECK = 'e1'.repeat(8);

t.test('one trace page for an SDK trace, its linked gateway call, and a gateway trace', async (t) => {
  await ensureDashboardBuild();
  const s = await startTestService(
    t,
    baseConfig({
      plugins: [
        { use: 'auth' },
        // A flag-mode policy: the linked call is served, and its verdict shows in the agent's tree.
        {
          use: 'guardrails',
          config: {
            policies: [
              {
                name: 'refund-watch',
                mode: 'flag',
                detectors: [{ type: 'regex', name: 'refund', patterns: ['refund'] }],
              },
            ],
          },
        },
        { use: 'router' },
        { use: 'tracing' },
      ],
    }),
  );
  const db = s.service.db;
  const password = 'correct horse battery staple';
  await addUser(
    db,
    { email: 'owner@example.test', name: 'The owner', role: 'owner', password },
    { actor: 'test', organizationId: 'default' },
  );
  const apiKey = await createApiKey(db, {
    kind: 'project',
    organizationId: 'default',
    projectId: 'default',
    now: Date.now(),
  });

  const base = Date.now() - 4000;
  const at = (ms: number) => new Date(base + ms).toISOString();
  const event = (id: string, type: string, body: Record<string, unknown>) => ({ id, type, timestamp: at(0), body });
  const ingest = await fetch(`${s.adminUrl}/api/public/ingestion`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: basicAuth(apiKey) },
    body: JSON.stringify({
      batch: [
        event('e-trace', 'trace-create', {
          id: TRACE,
          name: 'support agent',
          timestamp: at(0),
          userId: 'user-7',
          sessionId: 'session-42',
          tags: ['newcomer', 'langfuse-sdk'],
          input: { question: 'Can I get a refund after 30 days?' },
          output: { answer: 'Yes, within 60 days.' },
          metadata: { channel: 'chat' },
        }),
        event('e-plan', 'span-create', {
          id: PLAN,
          traceId: TRACE,
          name: 'plan',
          startTime: at(0),
          endTime: at(5000),
          input: { goal: 'answer the refund question' },
          output: { steps: ['retrieve', 'draft', 'check'] },
        }),
        event('e-retrieve', 'span-create', {
          id: RETRIEVE,
          traceId: TRACE,
          parentObservationId: PLAN,
          name: 'retrieve policy',
          startTime: at(200),
          endTime: at(1200),
          input: { query: 'refund policy days' },
          output: { documents: 3 },
          metadata: { index: 'policies-v2' },
        }),
        event('e-draft', 'generation-create', {
          id: DRAFT,
          traceId: TRACE,
          parentObservationId: PLAN,
          name: 'draft answer',
          startTime: at(1300),
          completionStartTime: at(1700),
          endTime: at(3000),
          model: 'gpt-4o-mini',
          modelParameters: { temperature: 0.2 },
          input: [{ role: 'user', content: 'Summarise the refund policy for day 45.' }],
          output: { role: 'assistant', content: 'Refunds are accepted within 60 days.' },
          usageDetails: { input: 120, output: 30 },
          costDetails: { input: 0.00012, output: 0.00006 },
        }),
        event('e-check', 'span-create', {
          id: CHECK,
          traceId: TRACE,
          parentObservationId: PLAN,
          name: 'check tone',
          startTime: at(3100),
          endTime: at(3300),
          level: 'WARNING',
          statusMessage: 'tone borderline',
          input: { draft: 'Refunds are accepted within 60 days.' },
        }),
      ],
    }),
  });
  t.equal(ingest.status, 207);
  t.same(((await ingest.json()) as any).errors, [], 'every event taken');

  // The agent's plan span calls the gateway, naming itself in traceparent.
  const call = await fetch(`${s.gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${TEST_KEY}`,
      traceparent: `00-${TRACE}-${PLAN}-01`,
    },
    body: JSON.stringify(chatBody({ messages: [{ role: 'user', content: 'check the refund answer' }] })),
  });
  t.equal(call.status, 200);
  await call.arrayBuffer();
  const callId = call.headers.get('x-svc-request-id')!;

  const { page, pageErrors, dash } = await signedInPage(t, s.adminUrl, 'owner@example.test', password);
  await waitFor('the agent trace with its gateway call', async () => {
    const r = await page.request.get(`${s.adminUrl}/dashboard/api/projects/default/traces/${TRACE}`);
    return r.ok() && ((await r.json()) as any).gatewayCalls.length === 1;
  });

  const openTrace = async (id: string) => {
    await page.goto(`${dash}#/p/default/traces/${id}`);
    await page.getByTestId('trace-page').waitFor();
  };
  const row = (name: string | RegExp) => page.getByTestId('waterfall-row').filter({ hasText: name });
  const select = async (name: string | RegExp) => {
    await row(name).click();
    return page.getByTestId('span-details');
  };

  await t.test('the SDK trace: cards, tags, user and session', async (t) => {
    await openTrace(TRACE);
    const cards = (await page.getByTestId('trace-cards').textContent())!;
    for (const gatewayOnly of ['Agent', 'Model group', 'HTTP status', 'Cache'])
      t.notMatch(cards, gatewayOnly, `no ${gatewayOnly} card on an SDK trace`);
    t.equal(await page.getByTestId('trace-observations').textContent(), '4');
    t.same(await page.getByTestId('trace-tags').locator('li').allTextContents(), ['newcomer', 'langfuse-sdk']);
    t.equal(await page.getByTestId('trace-user').textContent(), 'user-7');
    t.equal(await page.getByTestId('trace-session').textContent(), 'session-42');
    t.match(await page.getByTestId('trace-input').textContent(), /refund after 30 days/);
    t.match(await page.getByTestId('trace-metadata').textContent(), /"channel": "chat"/);
  });

  await t.test('the tree: each observation in place, with its input when selected', async (t) => {
    const names = await page.locator('[data-testid="waterfall-row"] .wf-name').allTextContents();
    t.match(names, [/plan/, /retrieve policy/, /draft answer/, /check tone/, /gateway demo/, /attempt demo-mock/]);
    t.same(
      await page
        .getByTestId('waterfall-row')
        .evaluateAll((rows) => rows.map((r) => parseInt((r.firstElementChild as HTMLElement).style.paddingLeft))),
      [0, 14, 14, 14, 14, 28],
      'children indented under plan, the gateway call under the span that made it, its attempt under the call',
    );

    let details = await select(/^SPAN plan/);
    t.match(await details.getByTestId('span-input').textContent(), /answer the refund question/);
    t.match(await details.getByTestId('span-output').textContent(), /retrieve/);
    t.equal(await details.getByTestId('span-pill').textContent(), 'DEFAULT', 'a span without status shows its level');

    await row('retrieve policy').focus();
    await page.keyboard.press('Enter');
    details = page.getByTestId('span-details');
    t.match(await details.getByTestId('span-input').textContent(), /refund policy days/);
    t.match(await details.getByTestId('span-metadata').textContent(), /policies-v2/);

    details = await select('check tone');
    t.match(await details.getByTestId('span-input').textContent(), /Refunds are accepted/);
    t.equal(await details.getByTestId('span-pill').textContent(), 'WARNING');
    t.equal(await details.getByTestId('span-status-message').textContent(), 'tone borderline');

    details = await select('draft answer');
    t.match(await details.getByTestId('span-input').textContent(), /day 45/);
    t.match(await details.getByTestId('span-output').textContent(), /within 60 days/);
    t.equal(await details.getByTestId('span-model').textContent(), 'gpt-4o-mini');
    t.match(await details.getByTestId('span-usage').textContent(), /^input 120 · output 30 · total 150$/);
    t.match(await details.getByTestId('span-cost').textContent(), /input \$0\.00012 · output \$0\.00006/);
    t.match(await details.getByTestId('span-model-parameters').textContent(), /temperature/);
    t.equal(await details.getByTestId('span-pill').textContent(), 'DEFAULT', 'a generation’s pill is never empty');
    await screenshot(page, 'trace-agent-generation');

    await row('gateway demo').click();
    const call = page.getByTestId('gateway-call-details');
    t.match(await call.textContent(), new RegExp(callId));
    t.match(
      await call.getByTestId('span-input').textContent(),
      /check the \[REDACTED:regex\.refund\] answer/,
      'the call’s input, as the flag policy redacted it in the trace',
    );
    t.same(
      await call.getByTestId('gateway-call-guardrails').locator('li').allTextContents(),
      ['flagged: refund-watch / regex.refund ×1 in prompt', 'flagged: refund-watch / regex.refund ×1 in response'],
      'the guardrail verdicts on the call (the demo model repeats the word in its answer)',
    );
    const stored: any = await (
      await page.request.get(`${s.adminUrl}/dashboard/api/projects/default/traces/${TRACE}`)
    ).json();
    t.equal(
      await call.getByTestId('gateway-call-redactions').textContent(),
      String(stored.gatewayCalls[0].governance['gateway.redactions'].length),
      'how many places it redacted',
    );
    t.match(await page.getByTestId('attempts').textContent(), /demo-mock/, 'the linked call’s attempt is listed');
    t.equal(await page.getByText('No provider attempts').count(), 0);
    await screenshot(page, 'trace-agent-gateway-call');
  });

  await t.test('user, session and tag links open the filtered trace list', async (t) => {
    for (const [testid, query] of [
      ['trace-user', 'userId=user-7'],
      ['trace-session', 'sessionId=session-42'],
    ]) {
      await openTrace(TRACE);
      await page.getByTestId(testid!).click();
      await page.waitForURL(new RegExp(query!));
      await page.getByTestId('traces').waitFor();
      t.same(await page.getByTestId('trace-link').allTextContents(), ['support agent'], `${query} lists the trace`);
    }
    await openTrace(TRACE);
    await page.getByTestId('trace-tags').getByText('newcomer').click();
    await page.waitForURL(/tag=newcomer/);
    await page.getByTestId('traces').waitFor();
    t.same(await page.getByTestId('trace-link').allTextContents(), ['support agent'], 'the tag lists the trace');
  });

  await t.test('a gateway trace keeps its gateway cards and attempts', async (t) => {
    await openTrace(callId);
    const cards = (await page.getByTestId('trace-cards').textContent())!;
    t.match(cards, /Model groupdemo → demo-mock/);
    t.match(cards, /HTTP status200/);
    t.match(await page.getByTestId('attempts').textContent(), /demo-mock/);
    t.equal(await page.getByTestId('called-from').locator('a').textContent(), TRACE);
    await row('attempt').click();
    t.equal(await page.getByTestId('span-pill').textContent(), 'ok');
    await screenshot(page, 'trace-gateway');
  });

  await t.test(
    'a trace of 2,000 observations: every one in the tree (its render time noted, not asserted)',
    async (t) => {
      const big = 'f2'.repeat(16);
      const batch = [event('big-trace', 'trace-create', { id: big, name: 'big agent run', timestamp: at(0) })];
      // 20 steps of 99 tool calls each.
      for (let i = 0; i < 2000; i++) {
        const parent = i % 100 === 0 ? undefined : `big-${i - (i % 100)}`;
        const start = i * 2;
        batch.push(
          event(`big-e-${i}`, 'span-create', {
            id: `big-${i}`,
            traceId: big,
            ...(parent ? { parentObservationId: parent } : {}),
            name: parent ? `tool call ${i}` : `step ${i / 100}`,
            startTime: at(start),
            endTime: at(start + (parent ? 2 : 200)),
            input: { i },
          }),
        );
      }
      const r = await fetch(`${s.adminUrl}/api/public/ingestion`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: basicAuth(apiKey) },
        body: JSON.stringify({ batch }),
      });
      t.equal(r.status, 207);
      const started = Date.now();
      await openTrace(big);
      await page.getByTestId('waterfall').waitFor();
      const fetched = await page.evaluate(
        (id) =>
          (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).find((e) =>
            e.name.endsWith(`/traces/${id}`),
          )!,
        big,
      );
      const shown = await page.evaluate(() => performance.now());
      t.comment(
        `2,000 observations: shown ${Date.now() - started} ms after navigation; the data route answered in ` +
          `${Math.round(fetched.duration)} ms, the page rendered it in about ${Math.round(shown - fetched.responseEnd)} ms`,
      );
      t.equal(await page.getByTestId('waterfall-row').count(), 2000);
    },
  );

  t.same(pageErrors, [], 'no script errors in the page');
});
