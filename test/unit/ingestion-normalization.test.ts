// Ingestion's field rules (docs/public-api.md "POST /api/public/ingestion", Field rules and Merge rules): environment
// normalisation, usage shapes to exclusive buckets, costs, and the merge helpers.
import t from 'tap';
import { normalizeEnvironment } from '../../src/observability/ingestion/environment.ts';
import { deepMerge, mergeOrder } from '../../src/observability/ingestion/merge.ts';
import { costDetailsOf, totalOf, usageDetailsOf } from '../../src/observability/ingestion/usage.ts';

t.test('environment', async (t) => {
  const cases: [unknown, string][] = [
    [undefined, 'default'],
    ['Production', 'production'],
    ['langfuse-staging', 'staging'],
    ['LANGFUSE_langfuse-dev', 'dev'],
    ['langfuse', 'default'],
    ['has space', 'default'],
    ['a'.repeat(50), 'a'.repeat(40)],
    [42, 'default'],
    ['eu_west-1', 'eu_west-1'],
  ];
  for (const [input, expected] of cases) t.equal(normalizeEnvironment(input), expected, String(input));
});

t.test('usage', async (t) => {
  t.same(
    usageDetailsOf({ usage: { input: 3, output: 4 } }),
    { input: 3, output: 4, total: 7 },
    'legacy usage, total derived',
  );
  t.same(
    usageDetailsOf({ usage: { promptTokens: 3, completionTokens: 4, totalTokens: 9 } }),
    { input: 3, output: 4, total: 9 },
    'legacy OpenAI names',
  );
  t.same(
    usageDetailsOf({ usageDetails: { input: '5', output: 2, bogus: 'x', neg: -1 } }),
    { input: 5, output: 2, total: 7 },
    'numeric strings parsed, others dropped',
  );
  t.same(
    usageDetailsOf({
      usageDetails: {
        prompt_tokens: 100,
        completion_tokens: 50,
        total_tokens: 150,
        prompt_tokens_details: { cached_tokens: 30 },
        completion_tokens_details: { reasoning_tokens: 20 },
      },
    }),
    { input: 70, input_cached_tokens: 30, output: 30, output_reasoning_tokens: 20, total: 150 },
    'Chat Completions usage: detail counts taken out of input and output',
  );
  t.same(
    usageDetailsOf({
      usageDetails: {
        input_tokens: 10,
        output_tokens: 5,
        total_tokens: 15,
        input_tokens_details: { cached_tokens: 4 },
      },
    }),
    { input: 6, input_cached_tokens: 4, output: 5, total: 15 },
    'Responses usage',
  );
  t.equal(usageDetailsOf({ usageDetails: {} }), undefined, 'empty means absent');
  t.equal(usageDetailsOf({}), undefined);
});

t.test('cost', async (t) => {
  t.same(costDetailsOf({ costDetails: { input: 0.1, output: 0.2, bad: -1, worse: 'x' } }), { input: 0.1, output: 0.2 });
  t.same(costDetailsOf({ usage: { inputCost: 0.5, totalCost: 0.7 } }), { input: 0.5, total: 0.7 });
  t.equal(costDetailsOf({ costDetails: {} }), undefined);
  t.equal(totalOf({ input: 1, output: 2 }), 3);
  t.equal(totalOf({ input: 1, output: 2, total: 10 }), 10);
});

t.test('merge helpers', async (t) => {
  t.same(deepMerge({ a: 1, d: { x: 1, y: [1] } }, { b: 2, d: { y: [2] }, u: undefined }), {
    a: 1,
    b: 2,
    d: { x: 1, y: [2] },
  });
  const ev = (id: string, type: string, timestamp: string) => ({ id, type, timestamp, body: {} });
  const order = mergeOrder([
    ev('u1', 'span-update', '2026-01-01T00:00:00Z'),
    ev('c2', 'span-create', '2026-01-01T00:00:02Z'),
    ev('c1', 'span-create', '2026-01-01T00:00:01Z'),
  ]);
  t.same(
    order.map((e) => e.id),
    ['c1', 'c2', 'u1'],
    'creates first, then updates, each by timestamp',
  );
});
