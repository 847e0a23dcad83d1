// Two users' conversations sent through the Langfuse ingestion API, for the sessions and users pages: alice's session
// of three chat turns (each trace with a generation carrying usage and cost) plus one trace of hers outside any
// session, and bob's session of one turn, ten minutes after alice's began; then a gateway call in alice's session.
import type { Test } from 'tap';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { ingest } from './public-api.ts';
import { chatBody, type TestService } from './service.ts';

export interface SeededTurn {
  id: string;
  name: string;
  question: string;
  answer: string;
  startMs: number;
  durationMs: number;
  tokens: number;
  cost: number;
}

export const ALICE_SESSION = 'conv alice/1';
export const BOB_SESSION = 'conv-bob-1';
const MINUTE = 60_000;

/** Alice's turns, in order. Their costs are exact in binary (so the sums compare exactly). */
export const ALICE_TURNS: SeededTurn[] = [
  {
    id: 'turn-a1',
    name: 'greet',
    question: 'Hello, who are you?',
    answer: 'I am the support bot.',
    startMs: 0,
    durationMs: 1200,
    tokens: 30,
    cost: 0.25,
  },
  {
    id: 'turn-a2',
    name: 'refund question',
    question: 'Can I get a refund after 30 days?',
    answer: 'Yes, within 60 days.',
    startMs: MINUTE,
    durationMs: 2500,
    tokens: 70,
    cost: 0.5,
  },
  {
    id: 'turn-a3',
    name: 'thanks',
    question: 'Thanks!',
    answer: 'You are welcome.',
    startMs: 2 * MINUTE,
    durationMs: 800,
    tokens: 20,
    cost: 0.125,
  },
];
export const BOB_TURN: SeededTurn = {
  id: 'turn-b1',
  name: 'shipping question',
  question: 'Where is my parcel?',
  answer: 'It ships tomorrow.',
  startMs: 10 * MINUTE,
  durationMs: 1500,
  tokens: 40,
  cost: 0.0625,
};
/** Alice's trace without a session. */
export const ALICE_LONE = 'lone-a';

/**
 * Sends the traces, alice's first turn starting an hour ago, then makes the gateway call in alice's session (which
 * must answer 200). Answers that start (`base`) and the project key used.
 */
export async function seedSessionTraces(t: Test, s: TestService) {
  const base = Date.now() - 3_600_000;
  const apiKey = await createApiKey(s.service.db, {
    kind: 'project',
    organizationId: 'default',
    projectId: 'default',
    now: Date.now(),
  });
  const lone: SeededTurn = { ...ALICE_TURNS[0]!, id: ALICE_LONE, name: 'lone', startMs: 5 * MINUTE };
  await sendTurns(s.adminUrl, apiKey, base, [
    ...ALICE_TURNS.map((turn) => ({ turn, userId: 'alice', sessionId: ALICE_SESSION })),
    { turn: lone, userId: 'alice' },
    { turn: BOB_TURN, userId: 'bob', sessionId: BOB_SESSION },
  ]);
  t.equal(await callGatewayInAliceSession(s.gatewayUrl), 200, 'the gateway call in the session');
  return { base, apiKey };
}

/** Sends each turn as a trace (chat input and output) with one generation, through the ingestion API. */
export async function sendTurns(
  adminUrl: string,
  apiKey: Parameters<typeof ingest>[1],
  base: number,
  turns: { turn: SeededTurn; userId: string; sessionId?: string }[],
): Promise<void> {
  const at = (ms: number) => new Date(base + ms).toISOString();
  const turnEvents = (turn: SeededTurn, userId: string, sessionId: string | undefined) => [
    {
      id: `e-${turn.id}`,
      type: 'trace-create',
      timestamp: at(turn.startMs),
      body: {
        id: turn.id,
        name: turn.name,
        timestamp: at(turn.startMs),
        userId,
        sessionId,
        input: [
          { role: 'system', content: 'You are a support bot.' },
          { role: 'user', content: turn.question },
        ],
        output: { role: 'assistant', content: turn.answer },
      },
    },
    {
      id: `e-${turn.id}-gen`,
      type: 'generation-create',
      timestamp: at(turn.startMs),
      body: {
        id: `${turn.id}-gen`,
        traceId: turn.id,
        name: 'llm',
        startTime: at(turn.startMs),
        endTime: at(turn.startMs + turn.durationMs),
        model: 'gpt-4o-mini',
        usageDetails: { input: turn.tokens / 2, output: turn.tokens / 2 },
        costDetails: { total: turn.cost },
      },
    },
  ];
  const batch = turns.flatMap(({ turn, userId, sessionId }) => turnEvents(turn, userId, sessionId));
  await ingest(adminUrl, apiKey, batch);
}

/** The gateway key of `sessionGatewayConfig`, with a hard budget of $10 over its life. */
export const BUDGETED_KEY = 'sk-svc-session-budget-key-0001';

/** The keys and plugins for a gateway call in alice's session with a budgeted key (merged into baseConfig). */
export const sessionGatewayConfig = () => ({
  keys: [{ alias: 'budgeted', key: BUDGETED_KEY, project: 'default', model_groups: ['demo'], budget_usd: 10 }],
  plugins: [{ use: 'auth' }, { use: 'budget' }, { use: 'router' }, { use: 'tracing' }],
});

/** One chat call through the gateway in alice's session, as alice, with the budgeted key; answers its status. */
async function callGatewayInAliceSession(gatewayUrl: string): Promise<number> {
  const res = await fetch(`${gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${BUDGETED_KEY}`,
      'svc-session-id': ALICE_SESSION,
      'svc-user-id': 'alice',
    },
    body: JSON.stringify(chatBody({ messages: [{ role: 'user', content: 'Summarise our chat.' }] })),
  });
  await res.arrayBuffer();
  return res.status;
}
