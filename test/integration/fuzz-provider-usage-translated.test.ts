// Seeded fuzzing of the usage the translated providers report, each in its own wire format, through the fake
// Anthropic, Bedrock and Vertex servers (Gemini, and Claude on Vertex), in JSON answers and in streams (Anthropic's
// message_start / message_delta usage, Bedrock's metadata event, Gemini's usageMetadata): sane counts, counts that
// are not (negative, strings, fractions, 1e30, above the bound, null where the provider never sends null, other
// kinds, a usage that is not an object), parts above their totals (Anthropic cache writes split into more 5-minute
// and 1-hour writes than there were writes, Gemini cached content above the prompt) and no usage at all. The
// translation carries what the provider sent to the router's usage check, so every family ends like an
// OpenAI-compatible provider (fuzz-provider-usage.test.ts): a 200 in the OpenAI envelope, a stored trace with sane
// usage (estimated and flagged, or clamped and flagged), /metrics counting each, and the ledger holding what the
// budget counter booked, also after a restart on the same PostgreSQL database. SVC_FUZZ_SEED replays a run,
// SVC_FUZZ_TRANSLATED_CASES sets the number of cases (default 40, spread over the four families).
import t from 'tap';
import { PRICE, key } from '../helpers/budget-fixtures.ts';
import { startFakeAnthropic, type AnthropicBehaviour } from '../helpers/fake-anthropic.ts';
import { converseText, startFakeBedrock, textStream, type BedrockBehaviour } from '../helpers/fake-bedrock.ts';
import { startFakeVertex, vertexDeployment, type FakeVertex, type VertexBehaviour } from '../helpers/fake-vertex.ts';
import { baseConfig, startTestService } from '../helpers/service.ts';
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

const CASES = Number(process.env.SVC_FUZZ_TRANSLATED_CASES ?? 40);
const FAMILIES = ['anthropic', 'bedrock', 'gemini', 'claude-vertex'] as const;
type Family = (typeof FAMILIES)[number];
const AKID = 'AKIDFAKEFUZZ';
const SECRET = 'fake-fuzz-secret';

interface FamilyCase extends UsageCase {
  family: Family;
}

/** The provider's usage with one count replaced by something that is not a count (null where it is refused). */
function spoiled(
  rand: ReturnType<typeof caseRandom>,
  usage: Record<string, unknown>,
  counts: readonly string[],
  nullable: readonly string[],
): unknown {
  if (rand.int(5) === 0) return rand.pick(NOT_OBJECTS);
  const field = rand.pick(counts);
  const bad = rand.pick(nullable.includes(field) ? NOT_COUNTS : [...NOT_COUNTS, null]);
  return { ...usage, [field]: bad };
}

function familyCase(n: number): FamilyCase {
  const rand = caseRandom(n);
  const { int } = rand;
  const family = FAMILIES[n % FAMILIES.length];
  // Within a family, cases alternate JSON and stream and walk through the kinds, so a few cases cover every pair;
  // the counts are random.
  const i = Math.floor(n / FAMILIES.length);
  const stream = i % 2 === 1;
  const content = caseContent(n, int(40));
  const over = 1 + int(1000);
  const base = { n, family, stream, content };
  const kinds: Kind[] = ['sane', 'invalid', 'invalid', 'parts_above', 'missing'];
  // Bedrock's counts add up to its totals by construction: it has no part that can stand above one.
  const familyKinds = family === 'bedrock' ? kinds.filter((k) => k !== 'parts_above') : kinds;
  const kind = familyKinds[Math.floor(i / 2) % familyKinds.length];
  if (kind === 'missing') return { ...base, kind, usage: undefined };

  if (family === 'gemini') {
    const prompt = int(5000);
    const candidates = int(5000);
    const thoughts = int(2000);
    const usage = {
      promptTokenCount: prompt,
      cachedContentTokenCount: int(prompt + 1),
      candidatesTokenCount: candidates,
      thoughtsTokenCount: thoughts,
      totalTokenCount: prompt + candidates + thoughts,
      trafficType: 'ON_DEMAND',
    };
    const tokens = prompt + candidates + thoughts;
    if (kind === 'sane') return { ...base, kind, usage, tokens };
    if (kind === 'parts_above')
      return { ...base, kind, usage: { ...usage, cachedContentTokenCount: prompt + over }, tokens };
    const counts = ['promptTokenCount', 'cachedContentTokenCount', 'candidatesTokenCount', 'thoughtsTokenCount'];
    return {
      ...base,
      kind,
      usage: spoiled(rand, usage, [...counts, 'toolUsePromptTokenCount'], ['cachedContentTokenCount']),
    };
  }

  const input = int(3000);
  const read = int(3000);
  const write = int(3000);
  const output = int(5000);
  const tokens = input + read + write + output;
  if (family === 'bedrock') {
    const usage = {
      inputTokens: input,
      outputTokens: output,
      totalTokens: tokens,
      cacheReadInputTokens: read,
      cacheWriteInputTokens: write,
    };
    if (kind === 'sane') return { ...base, kind, usage, tokens };
    return {
      ...base,
      kind,
      usage: spoiled(rand, usage, ['inputTokens', 'outputTokens', 'cacheReadInputTokens', 'cacheWriteInputTokens'], []),
    };
  }

  // Anthropic, directly or on Vertex: input_tokens excludes the cache reads and writes.
  const long = int(write + 1);
  const usage = {
    input_tokens: input,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: write,
    cache_creation: { ephemeral_5m_input_tokens: write - long, ephemeral_1h_input_tokens: long },
    output_tokens: output,
  };
  if (kind === 'sane') return { ...base, kind, usage, tokens };
  if (kind === 'parts_above')
    return {
      ...base,
      kind,
      usage: {
        ...usage,
        cache_creation: { ephemeral_5m_input_tokens: write - long + over, ephemeral_1h_input_tokens: long },
      },
      tokens,
    };
  const counts = ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'];
  // The cache counts may be null (none): only input_tokens and output_tokens refuse it.
  return { ...base, kind, usage: spoiled(rand, usage, counts, counts.slice(2)) };
}

const pieces = (c: UsageCase) => c.content.split(/(?<= )/);

/** Anthropic's JSON message, or its stream's events: the counts in message_start, output_tokens in message_delta. */
function anthropicWire(c: FamilyCase): { json: unknown; events: Array<{ type: string }> } {
  const id = `msg_fuzz_${c.n}`;
  const json = {
    id,
    type: 'message',
    role: 'assistant',
    model: 'claude-fuzz',
    content: [{ type: 'text', text: c.content }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: c.usage,
  };
  let startUsage: unknown;
  let deltaUsage: unknown;
  if (typeof c.usage === 'object' && c.usage !== null && !Array.isArray(c.usage)) {
    const { output_tokens, ...counts } = c.usage as Record<string, unknown>;
    startUsage = counts;
    deltaUsage = { output_tokens };
  } else deltaUsage = c.usage;
  const events = [
    {
      type: 'message_start',
      message: { id, type: 'message', role: 'assistant', model: 'claude-fuzz', content: [], usage: startUsage },
    },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ...pieces(c).map((text) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: deltaUsage },
    { type: 'message_stop' },
  ];
  return { json, events };
}

/** Gemini's JSON answer, or its stream's events: usageMetadata on the last one, with the finish reason. */
function geminiWire(c: FamilyCase): { json: unknown; events: unknown[] } {
  const candidate = (text: string, finish: boolean) => ({
    content: { role: 'model', parts: [{ text }] },
    ...(finish ? { finishReason: 'STOP' } : {}),
  });
  const answer = (text: string, last: boolean) => ({
    candidates: [candidate(text, last)],
    ...(last && c.usage !== undefined ? { usageMetadata: c.usage } : {}),
    modelVersion: 'gemini-2.5-flash',
    responseId: `fuzz-${c.n}`,
  });
  const all = pieces(c);
  return { json: answer(c.content, true), events: all.map((text, i) => answer(text, i === all.length - 1)) };
}

interface Fakes {
  anthropic: { queue: AnthropicBehaviour[] };
  bedrock: { queue: BedrockBehaviour[] };
  gemini: FakeVertex;
  claudeVertex: FakeVertex;
}

function queueCase(fakes: Fakes, c: FamilyCase): void {
  switch (c.family) {
    case 'anthropic': {
      const wire = anthropicWire(c);
      fakes.anthropic.queue.push(
        c.stream ? { type: 'events', events: wire.events } : { type: 'json', body: wire.json },
      );
      return;
    }
    case 'claude-vertex': {
      const wire = anthropicWire(c);
      fakes.claudeVertex.queue.push(
        c.stream
          ? { type: 'sse', events: wire.events, separator: '\n\n', named: true }
          : { type: 'json', body: wire.json },
      );
      return;
    }
    case 'bedrock':
      // Bedrock's usage as the case has it, none included (the helpers' defaults are sane counts).
      fakes.bedrock.queue.push(
        c.stream
          ? {
              type: 'stream',
              frames: textStream(pieces(c)).map((f) =>
                f.event === 'metadata' ? { ...f, payload: { ...f.payload, usage: c.usage } } : f,
              ),
            }
          : { type: 'converse', body: { ...converseText(c.content), usage: c.usage } },
      );
      return;
    case 'gemini': {
      const wire = geminiWire(c);
      fakes.gemini.queue.push(c.stream ? { type: 'sse', events: wire.events } : { type: 'json', body: wire.json });
    }
  }
}

t.test(`translated provider usage fuzz (seed ${SEED}, ${CASES} cases)`, async (t) => {
  t.comment(`SVC_FUZZ_SEED=${SEED} SVC_FUZZ_TRANSLATED_CASES=${CASES}`);
  const anthropic = await startFakeAnthropic();
  const bedrock = await startFakeBedrock(undefined, { credentials: { [AKID]: SECRET } });
  const gemini = await startFakeVertex();
  const claudeVertex = await startFakeVertex();
  t.teardown(() => Promise.all([anthropic, bedrock, gemini, claudeVertex].map((f) => f.close())));
  const fakes: Fakes = { anthropic, bedrock, gemini, claudeVertex };

  const group = (name: Family, deployment: Record<string, unknown>) => ({
    name,
    routing: { retries: 0 },
    deployments: [{ ...deployment, price: PRICE }],
  });
  const groups = [
    group('anthropic', {
      id: 'anthropic',
      provider: 'anthropic',
      base_url: anthropic.url,
      api_key: 'k',
      model: 'claude',
    }),
    group('bedrock', {
      id: 'bedrock',
      provider: 'bedrock',
      model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
      base_url: bedrock.url,
      aws: { region: 'us-east-1', access_key_id: AKID, secret_access_key: SECRET },
    }),
    group('gemini', vertexDeployment('gemini', gemini)),
    group(
      'claude-vertex',
      vertexDeployment('claude-vertex', claudeVertex, {
        model: 'claude-sonnet-4-5@20250929',
        gcp: {
          project: 'test-project',
          location: 'us-east5',
          credentials_json: claudeVertex.account.json,
          token_url: claudeVertex.tokenUrl,
        },
      }),
    ),
  ];
  const postgresUrl = await freshPostgresDatabase(t);
  const config = baseConfig({
    store: { postgres_url: postgresUrl },
    model_groups: groups,
    keys: [{ alias: ALIAS, key: key(ALIAS), project: 'default', model_groups: [...FAMILIES], budget_usd: 1_000_000 }],
    plugins: [{ use: 'auth' }, { use: 'budget' }, { use: 'router' }, { use: 'tracing' }],
  });
  const first = await startTestService(t, config);

  const cases = Array.from({ length: CASES }, (_, n) => familyCase(n));
  const booked = await runUsageCases(
    t,
    first,
    cases,
    (c) => queueCase(fakes, c),
    (c) => c.family,
  );
  await first.service.stop();

  // A restart on the same database; Bedrock's default answer counts 12 + 5 tokens.
  const second = await startTestService(t, config);
  await checkAfterRestart(t, second, 'bedrock', booked, 17);
});
