// The built-in price table finds a model under the ids providers use for it (dates, versions, regions, paths).
import t from 'tap';
import { builtinPrice, deploymentPrice, normaliseModelId } from '../../src/pricing/prices.ts';

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
