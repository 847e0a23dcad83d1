// Models and cost (docs/public-api.md "Models and cost, LLM connections, annotation queues"): GET/POST /models and
// GET/DELETE /models/{id} with the built-ins, create rules, and the cost of generations ingested with usage but no
// cost: project models over built-ins, pricing tiers, `(?i)` patterns, event cost wins, the trace's total. Both backends.
import t from 'tap';
import { ACCESS_MESSAGES } from '../../admin/public-api/route-access.ts';
import { BUILTIN_MODELS } from '../../src/platform/pricing/builtin-models.ts';
import { basicAuth as auth, callAdmin, startPublicApiService } from '../helpers/public-api.ts';
import type { TestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';

const call = (s: TestService, method: string, path: string, authorization: string, body?: unknown) =>
  callAdmin(s, method, `/api/public${path}`, authorization, body);
const close = (actual: number, expected: number) => Math.abs(actual - expected) < 1e-12;

let n = 0;
const generation = (id: string, traceId: string, body: Record<string, unknown>, type = 'generation-create') => ({
  id: `ev-${++n}`,
  type,
  timestamp: '2026-05-01T12:00:00.000Z',
  body: { id, traceId, startTime: '2026-05-01T12:00:00.000Z', ...body },
});

for (const backend of STORE_BACKENDS) {
  t.test(`models on ${backend}`, async (t) => {
    const { s, key, ingestKey, orgKey } = await startPublicApiService(t, backend);
    const k = auth(key);
    const ingest = async (...batch: unknown[]) => {
      const r = await call(s, 'POST', '/ingestion', k, { batch });
      if (r.status !== 207 || r.body.errors.length > 0) throw new Error(`ingestion failed: ${JSON.stringify(r.body)}`);
    };
    const observation = async (id: string) => (await call(s, 'GET', `/observations/${id}`, k)).body;
    const create = (body: Record<string, unknown>) => call(s, 'POST', '/models', k, body);

    t.test('key kinds: organization key 401, ingestion-only project 403', async (t) => {
      for (const [method, path] of [
        ['GET', '/models'],
        ['POST', '/models'],
        ['GET', '/models/builtin:gpt-4o'],
        ['DELETE', '/models/x'],
      ]) {
        const org = await call(s, method, path, auth(orgKey), method === 'POST' ? {} : undefined);
        t.same(
          org,
          { status: 401, body: { message: ACCESS_MESSAGES.organizationKey, error: 'UnauthorizedError' } },
          `${method} ${path} org`,
        );
        const ingestOnly = await call(s, method, path, auth(ingestKey), method === 'POST' ? {} : undefined);
        t.equal(ingestOnly.status, 403, `${method} ${path} ingestion-only`);
      }
    });

    t.test('built-ins are listed, readable, and cannot be deleted', async (t) => {
      const list = await call(s, 'GET', '/models?limit=100', k);
      t.equal(list.status, 200);
      t.same(list.body.meta, {
        page: 1,
        limit: 100,
        totalItems: BUILTIN_MODELS.length,
        totalPages: Math.ceil(BUILTIN_MODELS.length / 100),
      });
      const gpt4o = list.body.data.find((m: any) => m.id === 'builtin:gpt-4o');
      t.match(gpt4o, {
        modelName: 'gpt-4o',
        isLangfuseManaged: true,
        unit: 'TOKENS',
        startDate: null,
        totalPrice: null,
        pricingTiers: [{ isDefault: true, priority: 0, conditions: [] }],
      });
      t.ok(
        close(gpt4o.inputPrice, 2.5e-6) && close(gpt4o.outputPrice, 1e-5) && close(gpt4o.prices.input.price, 2.5e-6),
        'per-token USD',
      );
      t.match((await call(s, 'GET', '/models/builtin:gpt-4o', k)).body, { id: 'builtin:gpt-4o', modelName: 'gpt-4o' });
      const del = await call(s, 'DELETE', '/models/builtin:gpt-4o', k);
      t.equal(del.status, 404);
      t.match(del.body.message, /built-in model and cannot be deleted/);
      t.equal((await call(s, 'GET', '/models/nope', k)).status, 404);
    });

    t.test('create refuses what the rules forbid, naming the field', async (t) => {
      const base = { modelName: 'm', matchPattern: '^m$' };
      const tier = (extra: Record<string, unknown>) => ({
        name: 'Standard',
        isDefault: true,
        priority: 0,
        conditions: [],
        prices: { input: 1 },
        ...extra,
      });
      const usageOver = (value: number) => [{ usageDetailPattern: 'input', operator: 'gt', value }];
      const refusals: [Record<string, unknown>, RegExp][] = [
        [{ ...base, inputPrice: 1, totalPrice: 2 }, /totalPrice.*cannot be combined/],
        [{ ...base }, /give inputPrice/],
        [{ ...base, matchPattern: '(unclosed', inputPrice: 1 }, /matchPattern.*not a valid regular expression/],
        [{ ...base, inputPrice: -1 }, /inputPrice/],
        [{ ...base, inputPrice: 1, pricingTiers: [tier({})] }, /cannot be combined/],
        [{ ...base, pricingTiers: [tier({}), tier({ name: 'B', priority: 1 })] }, /exactly one default tier/],
        [{ ...base, pricingTiers: [tier({ isDefault: false, conditions: usageOver(1) })] }, /exactly one default tier/],
        [{ ...base, pricingTiers: [tier({ priority: 2 })] }, /must be 0 for the default tier/],
        [{ ...base, pricingTiers: [tier({ conditions: usageOver(1) })] }, /must be empty for the default tier/],
        [
          { ...base, pricingTiers: [tier({}), tier({ name: 'B', isDefault: false, priority: 1 })] },
          /must not be empty for a tier that is not the default/,
        ],
        [
          { ...base, pricingTiers: [tier({}), tier({ isDefault: false, priority: 1, conditions: usageOver(1) })] },
          /repeats the tier name/,
        ],
        [
          {
            ...base,
            pricingTiers: [
              tier({ priority: 0 }),
              tier({ name: 'B', isDefault: false, priority: 0, conditions: usageOver(1) }),
            ],
          },
          /repeats the priority/,
        ],
        [{ ...base, pricingTiers: [tier({ prices: {} })] }, /must set at least one price/],
        [
          {
            ...base,
            pricingTiers: [
              tier({}),
              tier({
                name: 'B',
                isDefault: false,
                priority: 1,
                conditions: [{ usageDetailPattern: '[', operator: 'gt', value: 1 }],
              }),
            ],
          },
          /usageDetailPattern.*not a valid regular expression/,
        ],
      ];
      for (const [body, message] of refusals) {
        const r = await create(body);
        t.equal(r.status, 400, JSON.stringify(body));
        t.match(JSON.stringify(r.body), message, JSON.stringify(body));
      }
    });

    t.test('CRUD of a project model; (?i) patterns compile', async (t) => {
      const r = await create({
        modelName: 'my-model',
        matchPattern: '(?i)^my-model$',
        startDate: '2026-01-01T00:00:00Z',
        unit: 'TOKENS',
        inputPrice: 1,
        outputPrice: 2,
        tokenizerId: 'openai',
      });
      t.equal(r.status, 200);
      t.match(r.body, {
        modelName: 'my-model',
        matchPattern: '(?i)^my-model$',
        startDate: '2026-01-01T00:00:00.000Z',
        unit: 'TOKENS',
        inputPrice: 1,
        outputPrice: 2,
        totalPrice: null,
        tokenizerId: 'openai',
        isLangfuseManaged: false,
        prices: { input: { price: 1 }, output: { price: 2 } },
        pricingTiers: [
          { name: 'Standard', isDefault: true, priority: 0, conditions: [], prices: { input: 1, output: 2 } },
        ],
      });
      const id = r.body.id;
      t.same((await call(s, 'GET', `/models/${id}`, k)).body, r.body);
      const first = await call(s, 'GET', '/models?limit=1', k);
      t.same(
        first.body.data.map((m: any) => m.id),
        [id],
        'project models come before built-ins',
      );
      t.equal(first.body.meta.totalItems, BUILTIN_MODELS.length + 1);
      t.same((await call(s, 'DELETE', `/models/${id}`, k)).body, { message: 'Model successfully deleted' });
      t.equal((await call(s, 'GET', `/models/${id}`, k)).status, 404);
      t.equal((await call(s, 'DELETE', `/models/${id}`, k)).status, 404);
    });

    t.test(
      'a generation with usage and no cost is priced: project model over built-in, then built-in after delete',
      async (t) => {
        await ingest(
          generation('g-builtin', 'tr-cost', {
            model: 'gpt-4o-mini-2024-07-18',
            usageDetails: { input: 1_000_000, output: 1_000_000 },
          }),
        );
        const builtin = await observation('g-builtin');
        t.ok(
          close(builtin.costDetails.input, 0.15) &&
            close(builtin.costDetails.output, 0.6) &&
            close(builtin.calculatedTotalCost, 0.75),
          'built-in price',
        );
        await ingest(
          generation('g-reasoning', 'tr-reasoning', {
            model: 'o4-mini',
            usageDetails: { input: 1_000_000, output: 1_000_000, output_reasoning_tokens: 2_000_000 },
          }),
        );
        const reasoning = await observation('g-reasoning');
        t.ok(
          close(reasoning.costDetails.output_reasoning_tokens, 8.8) &&
            close(reasoning.calculatedTotalCost, 1.1 + 4.4 + 8.8),
          'reasoning tokens cost what output costs',
        );

        const own = await create({ modelName: 'gpt-4o', matchPattern: '(?i)^gpt-4o$', inputPrice: 1, outputPrice: 2 });
        await ingest(generation('g-own', 'tr-cost', { model: 'GPT-4o', usage: { input: 10, output: 5 } }));
        t.same(
          (await observation('g-own')).costDetails,
          { input: 10, output: 10, total: 20 },
          'the project model wins, matched case-insensitively',
        );
        t.equal((await observation('g-own')).modelId, own.body.id, 'the observation names the model that priced it');

        await ingest(
          generation(
            'g-embed',
            'tr-cost',
            { model: 'text-embedding-3-small', usageDetails: { input: 1_000_000 } },
            'embedding-create',
          ),
        );
        t.ok(close((await observation('g-embed')).calculatedTotalCost, 0.02), 'an embedding is priced too');
        const trace = await call(s, 'GET', '/traces/tr-cost', k);
        t.ok(close(trace.body.totalCost, 20.77), 'the trace total sums its generations and embeddings');
        const byCost = await call(
          s,
          'GET',
          `/traces?filter=${encodeURIComponent(JSON.stringify([{ type: 'number', column: 'totalCost', operator: '>', value: 20.76 }]))}`,
          k,
        );
        t.same(
          byCost.body.data.map((x: any) => x.id),
          ['tr-cost'],
          'the totalCost filter counts the same observations',
        );

        await call(s, 'DELETE', `/models/${own.body.id}`, k);
        await ingest(generation('g-after', 'tr-cost', { model: 'gpt-4o', usage: { input: 1_000_000, output: 0 } }));
        t.ok(
          close((await observation('g-after')).costDetails.input, 2.5),
          'deleting the model brings the built-in back at once',
        );
      },
    );

    t.test('pricing tiers: a usage or attribute condition picks the tier, else the default', async (t) => {
      const r = await create({
        modelName: 'tiered',
        matchPattern: '^tiered',
        pricingTiers: [
          { name: 'Standard', isDefault: true, priority: 0, conditions: [], prices: { input: 1, output: 1 } },
          {
            name: 'Long context',
            isDefault: false,
            priority: 1,
            conditions: [{ usageDetailPattern: '^input', operator: 'gt', value: 100 }],
            prices: { input: 2, output: 3 },
          },
        ],
      });
      t.equal(r.status, 200);
      t.match(r.body.pricingTiers, [{ name: 'Standard' }, { name: 'Long context', priority: 1 }]);
      await ingest(
        generation('g-short', 'tr-tier', { model: 'tiered-v1', usageDetails: { input: 50, output: 10 } }),
        generation('g-long', 'tr-tier', {
          model: 'tiered-v1',
          usageDetails: { input: 90, input_cached: 20, output: 10 },
        }),
      );
      t.same((await observation('g-short')).costDetails, { input: 50, output: 10, total: 60 });
      t.same(
        (await observation('g-long')).costDetails,
        { input: 180, output: 30, total: 210 },
        'input + input_cached > 100',
      );

      await create({
        modelName: 'by-param',
        matchPattern: '^by-param$',
        pricingTiers: [
          { name: 'Standard', isDefault: true, priority: 0, conditions: [], prices: { input: 1 } },
          {
            name: 'Flex',
            isDefault: false,
            priority: 1,
            conditions: [{ source: 'model_parameters', key: 'service_tier', operator: 'in', values: ['flex'] }],
            prices: { input: 0.5 },
          },
        ],
      });
      await ingest(
        generation('g-flex', 'tr-tier', {
          model: 'by-param',
          modelParameters: { service_tier: 'flex' },
          usageDetails: { input: 10 },
        }),
        generation('g-std', 'tr-tier', {
          model: 'by-param',
          modelParameters: { service_tier: 'default' },
          usageDetails: { input: 10 },
        }),
      );
      t.same(
        (await observation('g-flex')).costDetails,
        { input: 5, total: 5 },
        'an attribute condition on a model parameter',
      );
      t.same((await observation('g-std')).costDetails, { input: 10, total: 10 });
    });

    t.test('a priced `total` key is the total', async (t) => {
      await create({ modelName: 'flat', matchPattern: '^flat-total$', totalPrice: 0.5 });
      await ingest(generation('g-flat', 'tr-flat', { model: 'flat-total', usage: { input: 2, output: 3 } }));
      t.same((await observation('g-flat')).costDetails, { total: 2.5 });
    });

    t.test('a cost the event gives wins and stays; a calculated one follows new usage', async (t) => {
      const priced = await create({ modelName: 'priced', matchPattern: '^priced$', inputPrice: 1, outputPrice: 1 });
      await ingest(
        generation('g-given', 'tr-given', {
          model: 'priced',
          usage: { input: 10, output: 10 },
          costDetails: { total: 0.5 },
        }),
      );
      t.same((await observation('g-given')).costDetails, { total: 0.5 });
      await ingest(generation('g-given', 'tr-given', { usage: { input: 100, output: 100 } }, 'generation-update'));
      t.same((await observation('g-given')).costDetails, { total: 0.5 }, 'new usage does not replace a given cost');
      t.match(
        await observation('g-given'),
        { modelId: priced.body.id, inputPrice: 1, outputPrice: 1 },
        "the model its name matches, also when the event gave the cost (Langfuse's modelId)",
      );

      await ingest(generation('g-calc', 'tr-given', { model: 'priced', usage: { input: 1, output: 1 } }));
      t.same((await observation('g-calc')).costDetails, { input: 1, output: 1, total: 2 });
      await ingest(generation('g-calc', 'tr-given', { usage: { input: 3, output: 4 } }, 'generation-update'));
      t.same((await observation('g-calc')).costDetails, { input: 3, output: 4, total: 7 }, 'recomputed');
      await ingest(generation('g-calc', 'tr-given', { costDetails: { input: 0.25 } }, 'generation-update'));
      t.same(
        (await observation('g-calc')).costDetails,
        { input: 0.25 },
        'a later given cost replaces the calculated one',
      );
      t.ok(close((await call(s, 'GET', '/traces/tr-given', k)).body.totalCost, 0.75));
    });

    t.test('usage keys named like Object members are priced only when the tier prices them', async (t) => {
      await create({ modelName: 'own-keys', matchPattern: '^own-keys$', inputPrice: 1, outputPrice: 2 });
      await ingest(
        generation('g-own-keys', 'tr-own-keys', {
          model: 'own-keys',
          usageDetails: { input: 10, constructor: 5, toString: 3, hasOwnProperty: 1 },
        }),
      );
      const o = await observation('g-own-keys');
      t.same(o.costDetails, { input: 10, total: 10 });
      t.equal(o.calculatedTotalCost, 10, 'finite');
    });

    t.test('model names over 1,000 characters match no model', async (t) => {
      await create({ modelName: 'long-name', matchPattern: '^long-name', inputPrice: 1 });
      const named = (length: number) => `long-name${'x'.repeat(length - 'long-name'.length)}`;
      await ingest(
        generation('g-1000', 'tr-long', { model: named(1_000), usage: { input: 4 } }),
        generation('g-1001', 'tr-long', { model: named(1_001), usage: { input: 4 } }),
      );
      t.same((await observation('g-1000')).costDetails, { input: 4, total: 4 });
      const unpriced = await observation('g-1001');
      t.equal(unpriced.model, named(1_001), 'the name is stored as given');
      t.same(unpriced.costDetails, {});
      t.equal(unpriced.modelId, null);
    });

    t.test(
      'patterns run in linear time (RE2): a catastrophic pattern cannot stall ingestion; lookarounds are refused',
      async (t) => {
        // With a backtracking engine `^(a+)+$` against 900 a's and a '!' would not finish in this test's lifetime.
        await create({ modelName: 'nested', matchPattern: '^(a+)+$', inputPrice: 1 });
        await create({
          modelName: 'nested-usage',
          matchPattern: '^nested-usage$',
          pricingTiers: [
            { name: 'default', isDefault: true, priority: 0, conditions: [], prices: { input: 1 } },
            {
              name: 'evil',
              isDefault: false,
              priority: 1,
              conditions: [{ usageDetailPattern: '^(x+x+)+y$', operator: 'gt', value: 0 }],
              prices: { input: 2 },
            },
          ],
        });
        await ingest(
          generation('g-evil', 'tr-evil', { model: `${'a'.repeat(900)}!`, usage: { input: 3 } }),
          generation('g-evil-usage', 'tr-evil', {
            model: 'nested-usage',
            usageDetails: { input: 3, [`${'x'.repeat(500)}!`]: 1 },
          }),
        );
        t.same((await observation('g-evil')).costDetails, {}, 'no match, answered at once');
        t.same(
          (await observation('g-evil-usage')).costDetails,
          { input: 3, total: 3 },
          'the default tier: the evil condition did not hold',
        );
        const lookaround = await call(s, 'POST', '/models', k, {
          modelName: 'look',
          matchPattern: '^(?=gpt)gpt',
          inputPrice: 1,
        });
        t.equal(lookaround.status, 400);
        t.match(JSON.stringify(lookaround.body.error), /matchPattern.*not a valid regular expression/);
      },
    );

    t.test('no model matches, or no usage: no cost', async (t) => {
      await ingest(
        generation('g-none', 'tr-none', { model: 'unknown-model', usage: { input: 5, output: 5 } }),
        generation('g-nousage', 'tr-none', { model: 'gpt-4o' }),
      );
      t.same((await observation('g-none')).costDetails, {});
      t.same((await observation('g-nousage')).costDetails, {});
    });
  });
}
