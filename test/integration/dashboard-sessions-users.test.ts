// The dashboard's sessions and end-users routes (docs/dashboard.md) on both store backends, over traces sent through
// the Langfuse ingestion API and a gateway call made in alice's session with a budgeted key: the sessions list newest
// first with each session's totals and paging; one session's traces in order with input, output and totals, and the
// gateway key its call went through; the users list by last seen; one user's totals, days and sessions; 404 for an
// unknown session or user, 401 without a session cookie.
import t from 'tap';
import { dashboardRequest, signIn } from '../helpers/dashboard.ts';
import { baseConfig, startTestService } from '../helpers/service.ts';
import {
  ALICE_LONE,
  ALICE_SESSION,
  ALICE_TURNS,
  BOB_SESSION,
  BOB_TURN,
  seedSessionTraces,
  sessionGatewayConfig,
} from '../helpers/session-traces.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';
import { waitFor } from '../helpers/wait-for.ts';

const P = '/projects/default';
const enc = encodeURIComponent;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

const config = () => baseConfig(sessionGatewayConfig());

for (const backend of STORE_BACKENDS) {
  t.test(`sessions and end users on ${backend}`, async (t) => {
    const s = await startTestService(t, config(), { backend });
    const { base } = await seedSessionTraces(t, s);
    const owner = await signIn(s, 'owner@localhost', s.service.firstOwner!.password);

    const gatewayTrace = await waitFor('the gateway trace', async () => {
      const r = await owner.call('GET', `${P}/traces?sessionId=${enc(ALICE_SESSION)}&limit=10`);
      return r.body.data.find((x: any) => x.source === 'gateway');
    });

    for (const [path, status] of [
      [`${P}/sessions`, 401],
      [`${P}/sessions/${enc(ALICE_SESSION)}`, 401],
      [`${P}/trace-users`, 401],
      [`${P}/trace-users/alice`, 401],
    ] as const)
      t.equal((await dashboardRequest(s, 'GET', path)).status, status, `${path} without a session`);

    const list = await owner.call('GET', `${P}/sessions`);
    t.equal(list.status, 200);
    t.same(
      list.body.data.map((x: any) => x.id),
      [BOB_SESSION, ALICE_SESSION],
      'newest first (by the first trace)',
    );
    const alice = list.body.data[1];
    t.match(alice, {
      id: ALICE_SESSION,
      userId: 'alice',
      userIds: ['alice'],
      traceCount: 4,
      firstSeen: new Date(base).toISOString(),
      tokens: sum(ALICE_TURNS.map((x) => x.tokens)) + gatewayTrace.tokens,
    });
    t.ok(Math.abs(alice.cost - (sum(ALICE_TURNS.map((x) => x.cost)) + gatewayTrace.cost)) < 1e-9, 'cost summed');
    t.equal(alice.latencyMs, sum(ALICE_TURNS.map((x) => x.durationMs)) + gatewayTrace.duration, 'latency summed');
    t.match(list.body.data[0], {
      id: BOB_SESSION,
      userId: 'bob',
      traceCount: 1,
      tokens: BOB_TURN.tokens,
      cost: BOB_TURN.cost,
      latencyMs: BOB_TURN.durationMs,
      firstSeen: new Date(base + BOB_TURN.startMs).toISOString(),
      lastSeen: new Date(base + BOB_TURN.startMs + BOB_TURN.durationMs).toISOString(),
    });
    t.same(list.body.pagination, { limit: 50, offset: 0, total: 2, totalIsLowerBound: false });
    const paged = await owner.call('GET', `${P}/sessions?limit=1&offset=1`);
    t.same(
      paged.body.data.map((x: any) => x.id),
      [ALICE_SESSION],
      'the second page of one',
    );
    t.equal((await owner.call('GET', `${P}/sessions?limit=0`)).status, 400, 'a limit below 1 refused');

    const one = await owner.call('GET', `${P}/sessions/${enc(ALICE_SESSION)}`);
    t.equal(one.status, 200);
    t.same(
      one.body.traces.map((x: any) => x.id),
      [...ALICE_TURNS.map((x) => x.id), gatewayTrace.id],
      'its traces in time order',
    );
    t.same(one.body.traces[1].input[1], { role: 'user', content: ALICE_TURNS[1]!.question }, 'a turn keeps its input');
    t.same(one.body.traces[1].output, { role: 'assistant', content: ALICE_TURNS[1]!.answer }, 'and its output');
    t.match(one.body.traces[1], { name: ALICE_TURNS[1]!.name, tokens: 70, cost: 0.5, duration: 2500 });
    t.match(one.body, {
      traceCount: 4,
      tokens: alice.tokens,
      latencyMs: alice.latencyMs,
      userIds: ['alice'],
      gatewayKeys: ['budgeted'],
    });
    t.ok(Math.abs(one.body.cost - alice.cost) < 1e-9, 'the same cost as the list');
    t.notOk(
      one.body.traces.some((x: any) => x.id === ALICE_LONE),
      'a trace of the user outside the session is not in it',
    );
    const missing = await owner.call('GET', `${P}/sessions/nope`);
    t.equal(missing.status, 404);
    t.equal(missing.body.error.code, 'not_found');

    const users = await owner.call('GET', `${P}/trace-users`);
    t.equal(users.status, 200);
    t.same(
      users.body.data.map((x: any) => x.id),
      ['alice', 'bob'],
      'the most recently seen first (alice called the gateway just now)',
    );
    t.match(users.body.data[1], {
      id: 'bob',
      traceCount: 1,
      sessionCount: 1,
      tokens: BOB_TURN.tokens,
      cost: BOB_TURN.cost,
    });
    t.same(users.body.pagination, { limit: 50, offset: 0, total: 2, totalIsLowerBound: false });

    const user = await owner.call('GET', `${P}/trace-users/alice`);
    t.equal(user.status, 200);
    const aliceTokens = alice.tokens + ALICE_TURNS[0]!.tokens; // her session and her lone trace
    t.match(user.body, { id: 'alice', traceCount: 5, sessionCount: 1, tokens: aliceTokens });
    t.same(
      user.body.sessions.map((x: any) => x.id),
      [ALICE_SESSION],
      'her sessions',
    );
    t.equal(sum(user.body.days.map((d: any) => d.traces)), 5, 'every trace in a day');
    t.equal(sum(user.body.days.map((d: any) => d.tokens)), aliceTokens, 'every token in a day');
    t.match(user.body.days[0].day, /^\d{4}-\d{2}-\d{2}$/);
    const nobody = await owner.call('GET', `${P}/trace-users/nobody`);
    t.equal(nobody.status, 404);
    t.equal(nobody.body.error.code, 'not_found');
  });
}
