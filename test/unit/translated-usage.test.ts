// The usage of the translated families (Anthropic and Claude on Vertex, Bedrock Converse, Vertex Gemini) reaches the
// router's usage check (src/plugin-api/usage-check.ts) as the provider sent it: sane counts are booked by the usage
// rule, a count that is not one makes the usage invalid (estimated), parts above their totals are clamped (repaired).
import t from 'tap';
import { usageOf } from '../../src/gateway/providers/anthropic/response-translation.ts';
import { createAnthropicStreamDecoder } from '../../src/gateway/providers/anthropic/stream-decoder.ts';
import { bedrockUsage } from '../../src/gateway/providers/bedrock/response-translation.ts';
import { checkedUsage } from '../../src/plugin-api/usage-check.ts';
import { geminiUsage } from '../../src/gateway/providers/vertex/gemini-response.ts';

const NOT_COUNTS: readonly unknown[] = [-1500, '1500', 12.5, 1e30, 10_000_001, true, {}];

/** The check's verdict on a family's translation of `raw`. */
const verdict = (translate: (raw: unknown) => unknown, raw: unknown) => {
  const usage = translate(raw);
  return usage === undefined ? 'missing' : checkedUsage(usage);
};

interface Family {
  name: string;
  translate: (raw: unknown) => unknown;
  sane: Record<string, number>;
  counts: string[];
  required: string[];
  nullable: string[];
}

const families: Family[] = [
  {
    name: 'Anthropic',
    translate: usageOf,
    sane: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 20, cache_creation_input_tokens: 30 },
    counts: ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'],
    required: ['input_tokens', 'output_tokens'],
    nullable: ['cache_read_input_tokens', 'cache_creation_input_tokens'],
  },
  {
    name: 'Bedrock',
    translate: bedrockUsage,
    sane: { inputTokens: 10, outputTokens: 5, totalTokens: 65, cacheReadInputTokens: 20, cacheWriteInputTokens: 30 },
    counts: ['inputTokens', 'outputTokens', 'cacheReadInputTokens', 'cacheWriteInputTokens'],
    required: ['inputTokens', 'outputTokens'],
    nullable: [],
  },
  {
    name: 'Gemini',
    translate: geminiUsage,
    sane: { promptTokenCount: 60, cachedContentTokenCount: 20, candidatesTokenCount: 3, thoughtsTokenCount: 2 },
    counts: ['promptTokenCount', 'cachedContentTokenCount', 'candidatesTokenCount', 'thoughtsTokenCount'],
    required: [],
    // Cached content is only a detail of the prompt: null there is none, as OpenAI's cached_tokens: null is.
    nullable: ['cachedContentTokenCount'],
  },
];

for (const f of families) {
  t.test(`${f.name}: sane counts are booked as the usage rule adds them`, async (t) => {
    t.match(verdict(f.translate, f.sane), { usage: { prompt_tokens: 60, completion_tokens: 5, total_tokens: 65 } });
    t.notOk('repaired' in (verdict(f.translate, f.sane) as object), 'nothing repaired');
    t.equal(verdict(f.translate, {}), 'missing', 'no counts: no usage (estimated as missing)');
    t.equal(verdict(f.translate, null), 'missing');
  });

  t.test(`${f.name}: a count that is not one is not coerced: the check refuses it`, async (t) => {
    for (const field of f.counts)
      for (const bad of [...NOT_COUNTS, null]) {
        if (bad === null && f.nullable.includes(field)) continue;
        const v = verdict(f.translate, { ...f.sane, [field]: bad });
        t.ok(typeof v === 'object' && 'invalid' in v, `${field}: ${JSON.stringify(bad)} → ${JSON.stringify(v)}`);
      }
    for (const field of f.required) {
      const { [field]: _left, ...rest } = f.sane as Record<string, unknown>;
      t.match(verdict(f.translate, rest), { invalid: String }, `${field} left out`);
    }
    for (const raw of ['lots', 42, [1, 2]]) t.match(verdict(f.translate, raw), { invalid: 'usage is not an object' });
  });
}

t.test('Anthropic: null cache counts are none; a cache-write split above the writes is clamped', async (t) => {
  t.match(
    verdict(usageOf, {
      input_tokens: 7,
      output_tokens: 2,
      cache_read_input_tokens: null,
      cache_creation_input_tokens: null,
    }),
    { usage: { prompt_tokens: 7, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 0 } } },
  );
  const split = verdict(usageOf, {
    input_tokens: 10,
    output_tokens: 5,
    cache_creation_input_tokens: 30,
    cache_creation: { ephemeral_5m_input_tokens: 25, ephemeral_1h_input_tokens: 40 },
  });
  t.match(split, {
    usage: {
      prompt_tokens: 40,
      prompt_tokens_details: {
        cache_creation_tokens: 30,
        cache_creation_token_details: { ephemeral_1h_input_tokens: 30, ephemeral_5m_input_tokens: 0 },
      },
    },
    repaired: /ephemeral_1h_input_tokens 40 above cache_creation_tokens 30/,
  });
  const unannounced = verdict(usageOf, {
    input_tokens: 10,
    output_tokens: 5,
    cache_creation_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 25, ephemeral_1h_input_tokens: 0 },
  });
  t.match(unannounced, { repaired: /ephemeral_5m_input_tokens 25 above/ }, 'split writes with no writes: clamped');
});

t.test('Gemini: cached content above the prompt is clamped; thoughts are part of the completion', async (t) => {
  t.match(verdict(geminiUsage, { promptTokenCount: 50, cachedContentTokenCount: 80, candidatesTokenCount: 4 }), {
    usage: { prompt_tokens: 50, prompt_tokens_details: { cached_tokens: 50 } },
    repaired: /cached_tokens 80 above prompt_tokens 50/,
  });
  t.match(verdict(geminiUsage, { promptTokenCount: 5, candidatesTokenCount: 3, thoughtsTokenCount: 9 }), {
    usage: { completion_tokens: 12, completion_tokens_details: { reasoning_tokens: 9 } },
  });
  t.match(verdict(geminiUsage, { promptTokenCount: 5_000_000, toolUsePromptTokenCount: 5_000_001 }), {
    invalid: /prompt_tokens 10000001 is above/,
  });
});

t.test('Anthropic stream: usage events merge, null says nothing new, garbage is carried', async (t) => {
  const usageChunk = (events: unknown[]) => {
    const decoder = createAnthropicStreamDecoder({ created: 1 });
    const chunks = [
      ...decoder.push({ type: 'message_start', message: { id: 'm', usage: events[0] } }),
      ...events.slice(1).flatMap((u) => decoder.push({ type: 'message_delta', delta: {}, usage: u })),
      ...decoder.push({ type: 'message_stop' }),
    ];
    return chunks.find((c) => c.usage)?.usage;
  };
  t.match(
    checkedUsage(
      usageChunk([
        { input_tokens: 12, output_tokens: 1 },
        { input_tokens: null, cache_read_input_tokens: null, output_tokens: 9 },
      ]),
    ),
    { usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 } },
  );
  t.match(checkedUsage(usageChunk([{ input_tokens: 12, output_tokens: 1 }, { output_tokens: -4 }])), {
    invalid: 'completion_tokens -4 is negative',
  });
  t.match(checkedUsage(usageChunk([{ input_tokens: '12', output_tokens: 1 }, { output_tokens: 3 }])), {
    invalid: /prompt_tokens is string/,
  });
  t.match(checkedUsage(usageChunk([{ input_tokens: 12, output_tokens: 1 }, 'lots'])), {
    invalid: 'usage is not an object',
  });
  t.equal(usageChunk([undefined, undefined]), undefined, 'no counts: no usage chunk');
});
