// The provider usage the gateway books (src/plugin-api/usage-check.ts): sane counts pass as they are, anything that is
// not a whole number from 0 to the bound makes the usage invalid, and parts above their totals are clamped.
import t from 'tap';
import { checkedUsage, USAGE_TOKENS_MAX } from '../../src/plugin-api/usage-check.ts';

t.test('sane usage is kept, only the fields the gateway reads', async (t) => {
  const raw = {
    prompt_tokens: 100,
    completion_tokens: 20,
    total_tokens: 120,
    prompt_tokens_details: { cached_tokens: 40, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 5, accepted_prediction_tokens: 0 },
    queue_time: 0.02,
  };
  t.same(checkedUsage(raw), {
    usage: {
      prompt_tokens: 100,
      completion_tokens: 20,
      total_tokens: 120,
      prompt_tokens_details: { cached_tokens: 40 },
      completion_tokens_details: { reasoning_tokens: 5 },
    },
  });
});

t.test('embeddings usage: no completion_tokens, the total is the prompt', async (t) => {
  t.same(checkedUsage({ prompt_tokens: 8, total_tokens: 8 }), {
    usage: { prompt_tokens: 8, completion_tokens: 0, total_tokens: 8 },
  });
});

t.test('the bound is a count; one more is not', async (t) => {
  t.ok('usage' in checkedUsage({ prompt_tokens: USAGE_TOKENS_MAX, completion_tokens: 0 }));
  t.same(checkedUsage({ prompt_tokens: USAGE_TOKENS_MAX + 1, completion_tokens: 0 }), {
    invalid: `prompt_tokens ${USAGE_TOKENS_MAX + 1} is above ${USAGE_TOKENS_MAX}`,
  });
});

t.test('what is not a count makes the whole usage invalid, and says where', async (t) => {
  const cases: [unknown, string][] = [
    [{ prompt_tokens: -1500, completion_tokens: 5 }, 'prompt_tokens -1500 is negative'],
    [{ prompt_tokens: '1500', completion_tokens: 5 }, 'prompt_tokens is string, not a number'],
    [{ prompt_tokens: 10, completion_tokens: 2.5 }, 'completion_tokens 2.5 is not a whole number'],
    [{ prompt_tokens: 10, completion_tokens: 1e30 }, `completion_tokens 1e+30 is above ${USAGE_TOKENS_MAX}`],
    [{ prompt_tokens: null, completion_tokens: 5 }, 'prompt_tokens is null, not a number'],
    [{ completion_tokens: 5 }, 'prompt_tokens is missing'],
    [{ prompt_tokens: 10, completion_tokens: 5, total_tokens: -15 }, 'total_tokens -15 is negative'],
    [
      { prompt_tokens: 10, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 'x' } },
      'prompt_tokens_details.cached_tokens is string, not a number',
    ],
    [
      { prompt_tokens: 10, completion_tokens: 5, completion_tokens_details: { reasoning_tokens: -1 } },
      'completion_tokens_details.reasoning_tokens -1 is negative',
    ],
    [{ prompt_tokens: 10, completion_tokens: 5, prompt_tokens_details: 7 }, 'prompt_tokens_details is not an object'],
    ['lots', 'usage is not an object'],
    [[1, 2], 'usage is not an object'],
  ];
  for (const [raw, why] of cases) t.same(checkedUsage(raw), { invalid: why }, JSON.stringify(raw));
});

t.test('null details are absent', async (t) => {
  t.same(
    checkedUsage({
      prompt_tokens: 10,
      completion_tokens: 5,
      prompt_tokens_details: { cached_tokens: null },
      completion_tokens_details: null,
    }),
    { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: {} } },
  );
});

t.test('parts above their totals are clamped, and the repair is named', async (t) => {
  const checked = checkedUsage({
    prompt_tokens: 100,
    completion_tokens: 10,
    total_tokens: 999,
    prompt_tokens_details: {
      cached_tokens: 80,
      cache_creation_tokens: 50,
      cache_creation_token_details: { ephemeral_5m_input_tokens: 30, ephemeral_1h_input_tokens: 40 },
    },
    completion_tokens_details: { reasoning_tokens: 25 },
  });
  t.same(checked, {
    usage: {
      prompt_tokens: 100,
      completion_tokens: 10,
      total_tokens: 110,
      prompt_tokens_details: {
        cached_tokens: 80,
        cache_creation_tokens: 20,
        cache_creation_token_details: { ephemeral_1h_input_tokens: 20, ephemeral_5m_input_tokens: 0 },
      },
      completion_tokens_details: { reasoning_tokens: 10 },
    },
    repaired:
      'total_tokens 999 is not prompt_tokens + completion_tokens; cache_creation_tokens 50 above the uncached prompt 20; ' +
      'ephemeral_1h_input_tokens 40 above cache_creation_tokens 20; ephemeral_5m_input_tokens 30 above the other cache writes 0; ' +
      'reasoning_tokens 25 above completion_tokens 10',
  });
});
