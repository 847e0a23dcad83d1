// The built-in price table finds a model under the ids providers use for it (dates, versions, regions, paths); the
// cost of a usage record per price component.
import t from 'tap';
import { BUILTIN_MODELS } from '../../src/platform/pricing/builtin-models.ts';
import {
  costDetailsOf,
  costOf,
  costOfTokens,
  usageComponents,
  usageDetailsOf,
} from '../../src/platform/pricing/cost.ts';
import { costDetailsOf as modelCostDetails, selectTier } from '../../src/platform/pricing/model-cost.ts';
import {
  BUILTIN_PRICES_DATE,
  builtinPrice,
  deploymentPrice,
  normaliseModelId,
} from '../../src/platform/pricing/prices.ts';

t.test('model ids are normalised to the table name', async (t) => {
  const cases: [string, string][] = [
    ['gpt-4o-mini', 'gpt-4o-mini'],
    ['gpt-4o-mini-2024-07-18', 'gpt-4o-mini'],
    ['openai/gpt-4.1', 'gpt-4.1'],
    ['claude-3-5-sonnet-20240620', 'claude-3-5-sonnet'],
    ['claude-sonnet-4-5@20250929', 'claude-sonnet-4-5'],
    ['anthropic.claude-3-5-haiku-20241022-v1:0', 'claude-3-5-haiku'],
    ['us.anthropic.claude-sonnet-4-20250514-v1:0', 'claude-sonnet-4'],
    ['amazon.nova-pro-v1:0', 'nova-pro'],
    ['publishers/google/models/gemini-2.5-flash', 'gemini-2.5-flash'],
    ['claude-3-7-sonnet-latest', 'claude-3-7-sonnet'],
  ];
  for (const [id, name] of cases) t.equal(normaliseModelId(id), name, id);
});

t.test('prices: the table, unknown models, and a deployment price first', async (t) => {
  t.same(builtinPrice('gpt-4o-mini-2024-07-18'), {
    input_per_mtok: 0.15,
    output_per_mtok: 0.6,
    cached_input_per_mtok: 0.075,
  });
  t.same(builtinPrice('us.anthropic.claude-3-5-haiku-20241022-v1:0'), {
    input_per_mtok: 0.8,
    output_per_mtok: 4,
    cached_input_per_mtok: 0.08,
    cache_write_per_mtok: 1,
    cache_write_1h_per_mtok: 1.6,
  });
  t.same(
    builtinPrice('claude-sonnet-4-5@20250929')?.long_context,
    {
      above_prompt_tokens: 200_000,
      input_per_mtok: 6,
      output_per_mtok: 22.5,
      cached_input_per_mtok: 0.6,
      cache_write_per_mtok: 7.5,
      cache_write_1h_per_mtok: 12,
    },
    'Claude with 1M context: its rates above 200k prompt tokens',
  );
  t.same(builtinPrice('publishers/google/models/gemini-2.5-pro')?.long_context, {
    above_prompt_tokens: 200_000,
    input_per_mtok: 2.5,
    output_per_mtok: 15,
    cached_input_per_mtok: 0.25,
  });
  t.equal(
    builtinPrice('gpt-4o-mini-realtime-preview'),
    undefined,
    'a prefix is not enough: another model is not priced as gpt-4o-mini',
  );
  t.same(
    builtinPrice('gpt-3.5-turbo-0125'),
    { input_per_mtok: 0.5, output_per_mtok: 1.5 },
    'a four-digit OpenAI snapshot costs what its model costs',
  );
  t.same(builtinPrice('gpt-4-0613'), { input_per_mtok: 30, output_per_mtok: 60 });
  t.same(
    builtinPrice('gpt-3.5-turbo-1106'),
    { input_per_mtok: 1, output_per_mtok: 2 },
    'unless it has a price of its own',
  );
  t.same(
    builtinPrice('mistral-large-2407'),
    { input_per_mtok: 2, output_per_mtok: 6 },
    'a name ending in four digits that is in the table',
  );
  t.equal(builtinPrice('my-llama'), undefined);
  t.equal(builtinPrice(undefined), undefined);
  for (const inherited of ['constructor', 'toString', '__proto__'])
    t.equal(builtinPrice(inherited), undefined, `${inherited} is no model`);
  const own = { input_per_mtok: 9, output_per_mtok: 9 };
  t.same(
    deploymentPrice({ id: 'd', provider: 'openai', weight: 1, model: 'gpt-4o', price: own }),
    own,
    'gateway.yaml wins',
  );
  t.same(deploymentPrice({ id: 'd', provider: 'openai', weight: 1, model: 'gpt-4o' }), {
    input_per_mtok: 2.5,
    output_per_mtok: 10,
    cached_input_per_mtok: 1.25,
  });
});

t.test('costs: rates left out cost what their base rate costs, so an old price costs what it cost', async (t) => {
  const old = { input_per_mtok: 2, output_per_mtok: 8, cached_input_per_mtok: 0.5 };
  const usage = {
    prompt_tokens: 1000,
    completion_tokens: 300,
    total_tokens: 1300,
    prompt_tokens_details: {
      cached_tokens: 400,
      cache_creation_tokens: 100,
      cache_creation_token_details: { ephemeral_5m_input_tokens: 40, ephemeral_1h_input_tokens: 60 },
    },
    completion_tokens_details: { reasoning_tokens: 200 },
  };
  // Writes at the input rate, reasoning at the output rate: (600 × 2 + 400 × 0.5 + 300 × 8) / 1e6.
  t.equal(costOf(usage, old), (600 * 2 + 400 * 0.5 + 300 * 8) / 1e6);
  t.same(usageDetailsOf(usage), {
    input: 500,
    input_cached_tokens: 400,
    input_cache_creation: 40,
    input_cache_creation_1h: 60,
    output: 100,
    output_reasoning_tokens: 200,
    total: 1300,
  });
  const withWrites = { ...old, cache_write_per_mtok: 2.5 };
  t.equal(
    costDetailsOf(usage, withWrites).input_cache_creation_1h,
    (60 * 2.5) / 1e6,
    '1-hour writes cost the 5-minute write rate when they have none',
  );
  t.equal(costOf(usage, undefined), 0, 'unpriced');
  for (const price of [old, withWrites, builtinPrice('claude-sonnet-4-5')!, builtinPrice('gemini-2.5-pro')!])
    t.equal(costOf(usage, price), costDetailsOf(usage, price).total, 'x-svc-cost and the trace total are one number');
});

t.test('costs: counts a provider got wrong are capped, never negative', async (t) => {
  const usage = {
    prompt_tokens: 10,
    completion_tokens: 5,
    total_tokens: 15,
    prompt_tokens_details: { cached_tokens: 50 },
    completion_tokens_details: { reasoning_tokens: 9 },
  };
  t.same(usageComponents(usage), {
    input: 0,
    cacheRead: 10,
    cacheWrite5m: 0,
    cacheWrite1h: 0,
    output: 0,
    reasoning: 5,
  });
});

t.test('costs: estimates (budgets, the cost strategy) take the long-context rates above the threshold', async (t) => {
  const sonnet = builtinPrice('claude-sonnet-4-5')!;
  t.equal(costOfTokens(200_000, 1000, sonnet), (200_000 * 3 + 1000 * 15) / 1e6, 'at the threshold');
  t.equal(costOfTokens(200_001, 1000, sonnet), (200_001 * 6 + 1000 * 22.5) / 1e6, 'above it');
  t.equal(costOfTokens(10, 10, undefined), 0);
});

t.test('the built-in models of the public API carry the components and a long-context tier', async (t) => {
  const pro = BUILTIN_MODELS.find((m) => m.modelName === 'gemini-2.5-pro')!;
  t.equal(pro.createdAt, `${BUILTIN_PRICES_DATE}T00:00:00.000Z`);
  const usage = { input: 150_000, input_cached_tokens: 60_000, output: 1000 };
  const tier = selectTier(pro, { usage })!;
  t.equal(tier.name, 'Long context', 'a 210k prompt');
  const details = modelCostDetails(tier, usage)!;
  t.ok(Math.abs(details.total - (150_000 * 2.5 + 60_000 * 0.25 + 1000 * 15) / 1e6) < 1e-12);
  t.equal(selectTier(pro, { usage: { input: 100, output: 10 } })!.name, 'Standard');
  const haiku = BUILTIN_MODELS.find((m) => m.modelName === 'claude-haiku-4-5')!;
  t.same(
    haiku.pricingTiers[0].prices,
    {
      input: 1 / 1e6,
      output: 5 / 1e6,
      output_reasoning_tokens: 5 / 1e6,
      output_reasoning: 5 / 1e6,
      input_cached_tokens: 0.1 / 1e6,
      input_cache_read: 0.1 / 1e6,
      input_cache_creation: 1.25 / 1e6,
      input_cache_creation_1h: 2 / 1e6,
    },
    'per token: reads 0.1×, 5-minute writes 1.25×, 1-hour writes 2× input',
  );
});
