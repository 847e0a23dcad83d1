// Five traces for the trace list's filters and orders, sent through the Langfuse ingestion API a minute apart (the
// first an hour ago): each with its own name, user, session, tags, latency (its one generation's length), cost and
// level, a chat input (system prompt, then the user's question) and the assistant's answer.
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { ingest } from './public-api.ts';
import type { TestService } from './service.ts';

export interface ListedTrace {
  id: string;
  name: string;
  userId: string;
  sessionId?: string;
  tags: string[];
  latencyMs: number;
  /** Exact in binary, so sums compare exactly. */
  cost: number;
  level: 'DEFAULT' | 'WARNING' | 'ERROR';
  question: string;
  answer: string;
}

/** A question longer than a preview, which the list cuts. */
export const LONG_QUESTION = `Summarise this report: ${'quarterly revenue grew in every region '.repeat(12)}`;

/** Oldest first. */
export const LISTED: ListedTrace[] = [
  {
    id: 'tl-checkout-1',
    name: 'checkout',
    userId: 'alice',
    sessionId: 'sess-1',
    tags: ['prod', 'team:a'],
    latencyMs: 1200,
    cost: 0.25,
    level: 'DEFAULT',
    question: 'Where is my order?',
    answer: 'It ships tomorrow.',
  },
  {
    id: 'tl-search-1',
    name: 'search',
    userId: 'bob',
    sessionId: 'sess-2',
    tags: ['prod'],
    latencyMs: 3000,
    cost: 0.5,
    level: 'WARNING',
    question: 'Find red shoes',
    answer: 'Three pairs found.',
  },
  {
    id: 'tl-checkout-2',
    name: 'checkout',
    userId: 'bob',
    sessionId: 'sess-1',
    tags: ['team:b'],
    latencyMs: 500,
    cost: 0.125,
    level: 'ERROR',
    question: 'Pay with card',
    answer: 'The payment failed.',
  },
  {
    id: 'tl-summarize-1',
    name: 'summarize',
    userId: 'carol',
    tags: [],
    latencyMs: 8000,
    cost: 1,
    level: 'DEFAULT',
    question: LONG_QUESTION,
    answer: 'Revenue grew everywhere.',
  },
  {
    id: 'tl-search-2',
    name: 'search',
    userId: 'alice',
    sessionId: 'sess-3',
    tags: ['prod', 'team:a'],
    latencyMs: 200,
    cost: 0.0625,
    level: 'DEFAULT',
    question: 'Find blue hats',
    answer: 'One hat found.',
  },
];

const MINUTE = 60_000;

/** Sends LISTED; answers the start of the first trace. */
export async function seedListedTraces(s: TestService): Promise<number> {
  const base = Date.now() - 60 * MINUTE;
  const key = await createApiKey(s.service.db, {
    kind: 'project',
    organizationId: 'default',
    projectId: 'default',
    now: Date.now(),
  });
  const batch = LISTED.flatMap((x, i) => {
    const start = new Date(base + i * MINUTE).toISOString();
    const end = new Date(base + i * MINUTE + x.latencyMs).toISOString();
    return [
      {
        id: `e-${x.id}`,
        type: 'trace-create',
        timestamp: start,
        body: {
          id: x.id,
          name: x.name,
          timestamp: start,
          userId: x.userId,
          sessionId: x.sessionId,
          tags: x.tags,
          input: [
            { role: 'system', content: 'You are a shop assistant.' },
            { role: 'user', content: x.question },
          ],
          output: { role: 'assistant', content: x.answer },
        },
      },
      {
        id: `e-${x.id}-gen`,
        type: 'generation-create',
        timestamp: start,
        body: {
          id: `${x.id}-gen`,
          traceId: x.id,
          name: 'llm',
          startTime: start,
          endTime: end,
          level: x.level,
          model: 'gpt-4o-mini',
          usageDetails: { input: 10, output: 5 },
          costDetails: { total: x.cost },
        },
      },
    ];
  });
  await ingest(s.adminUrl, key, batch);
  return base;
}

/** The ids of LISTED that `keep` keeps, newest first (the list's default order). */
export const newestFirst = (keep: (x: ListedTrace) => boolean = () => true) =>
  LISTED.filter(keep)
    .map((x) => x.id)
    .reverse();

/** The ids of LISTED ordered by `value`, ascending (ties never occur among them). */
export const ascendingBy = (value: (x: ListedTrace) => number) =>
  [...LISTED].sort((a, b) => value(a) - value(b)).map((x) => x.id);
