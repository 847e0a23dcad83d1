// Seeded fuzzing of the usage an OpenAI-compatible provider reports, in JSON answers and in a stream's usage chunk:
// sane counts, counts that are not (negative, strings, fractions, 1e30, above the 10,000,000 bound, null, other
// kinds, a usage that is not an object), parts above their totals (cache reads above the prompt, reasoning above
// the completion, a total that is not the sum) and no usage at all. Every answer is a 200 in the OpenAI envelope;
// every trace is stored with sane usage (an estimate, flagged, where the provider's was not a count or was missing;
// clamped parts where they were above their totals); /metrics counts all three; and the ledger holds what the budget counters booked, also after a restart on
// the same PostgreSQL database. The seed is printed; SVC_FUZZ_SEED replays a run, SVC_FUZZ_CASES sets the number of
// cases (default 48). Case n is generated from (seed, n) alone, so a failure names the case that reproduces it.
import t from 'tap';
import { PRICE, key } from '../helpers/budget-fixtures.ts';
import { startFakeOpenAI, type Behaviour, type FakeOpenAI } from '../helpers/fake-openai.ts';
import { baseConfig, openaiDeployment, startTestService } from '../helpers/service.ts';
import { freshPostgresDatabase } from '../helpers/store.ts';
import {
  ALIAS,
  NOT_COUNTS,
  NOT_OBJECTS,
  SEED,
  caseContent,
  caseRandom,
  checkAfterRestart,
  runUsageCases,
  type Kind,
  type UsageCase,
} from '../helpers/usage-fuzz.ts';

const CASES = Number(process.env.SVC_FUZZ_CASES ?? 48);

function usageCase(n: number): UsageCase {
  const { r, int, pick } = caseRandom(n);
  const stream = r() < 0.5;
  const content = caseContent(n, int(40));
  const prompt = int(5000);
  const completion = int(5000);
  const cached = int(prompt + 1);
  const reasoning = int(completion + 1);
  const usage: Record<string, any> = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached },
    completion_tokens_details: { reasoning_tokens: reasoning },
  };
  const kind = pick<Kind>(['sane', 'invalid', 'invalid', 'parts_above', 'missing']);
  if (kind === 'missing') return { n, kind, stream, usage: undefined, content };
  if (kind === 'sane') return { n, kind, stream, usage, content, tokens: prompt + completion };
  if (kind === 'parts_above') {
    const over = 1 + int(1000);
    const part = pick(['cached', 'reasoning', 'total']);
    if (part === 'cached') usage.prompt_tokens_details.cached_tokens = prompt + over;
    else if (part === 'reasoning') usage.completion_tokens_details.reasoning_tokens = completion + over;
    else usage.total_tokens = prompt + completion + over;
    return { n, kind, stream, usage, content, tokens: prompt + completion };
  }
  const bad = pick(NOT_COUNTS);
  switch (int(7)) {
    case 0:
      return { n, kind, stream, usage: pick(NOT_OBJECTS), content };
    case 1:
      usage.prompt_tokens = pick([...NOT_COUNTS, null]);
      break;
    case 2:
      usage.completion_tokens = pick([...NOT_COUNTS, null]);
      break;
    case 3:
      usage.total_tokens = bad;
      break;
    case 4:
      usage.prompt_tokens_details.cached_tokens = bad;
      break;
    case 5:
      usage.completion_tokens_details.reasoning_tokens = bad;
      break;
    default:
      usage.prompt_tokens_details.cache_creation_tokens = bad;
  }
  return { n, kind, stream, usage, content };
}

function behaviour(c: UsageCase): Behaviour {
  if (c.stream)
    return {
      type: 'stream',
      pieces: c.content.split(/(?<= )/),
      usage: c.usage as Record<string, unknown> | undefined,
      noUsage: c.kind === 'missing',
    };
  const body = {
    id: `chatcmpl-fuzz-${c.n}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'fake-model',
    choices: [{ index: 0, message: { role: 'assistant', content: c.content }, finish_reason: 'stop' }],
    usage: c.usage,
  };
  return { type: 'json', body };
}

function config(upUrl: string, postgresUrl: string) {
  return baseConfig({
    store: { postgres_url: postgresUrl },
    model_groups: [{ name: 'up', deployments: [openaiDeployment('priced-up', upUrl, { price: PRICE })] }],
    keys: [{ alias: ALIAS, key: key(ALIAS), project: 'default', model_groups: ['up'], budget_usd: 1_000_000 }],
    plugins: [{ use: 'auth' }, { use: 'budget' }, { use: 'router' }, { use: 'tracing' }],
  });
}

t.test(`provider usage fuzz (seed ${SEED}, ${CASES} cases)`, async (t) => {
  t.comment(`SVC_FUZZ_SEED=${SEED} SVC_FUZZ_CASES=${CASES}`);
  const up: FakeOpenAI = await startFakeOpenAI();
  t.teardown(() => up.close());
  const postgresUrl = await freshPostgresDatabase(t);
  const first = await startTestService(t, config(up.url, postgresUrl));

  const cases = Array.from({ length: CASES }, (_, n) => usageCase(n));
  const booked = await runUsageCases(
    t,
    first,
    cases,
    (c) => up.queue.push(behaviour(c)),
    () => 'up',
  );
  await first.service.stop();

  // A restart on the same database: the counter is seeded from the ledger when the next request is admitted.
  const second = await startTestService(t, config(up.url, postgresUrl));
  up.queue.push({ type: 'ok', content: 'after the restart', usage: { prompt_tokens: 10, completion_tokens: 5 } });
  await checkAfterRestart(t, second, 'up', booked, 15);
});
