// What Langfuse clients expect of the public API beyond the shapes (issue 14, docs/public-api.md): trace latency over
// the observations, model prices and prompt ids on observations, OpenAI snapshot names priced, unknown parameters and
// fields ignored while known ones stay checked, an empty `filter`, trace-only v1 scores, comma-separated ids, score
// filters, date-only model start dates, run items outliving their dataset item, and prompt composition. Both backends.
import t from 'tap';
import { setPromptLabels } from '../../src/platform/store/repos/prompts.ts';
import { basicAuth as auth, callAdmin, startPublicApiService } from '../helpers/public-api.ts';
import type { TestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';

const call = (s: TestService, method: string, path: string, authorization: string, body?: unknown) =>
  callAdmin(s, method, `/api/public${path}`, authorization, body);
const close = (actual: unknown, expected: number) => typeof actual === 'number' && Math.abs(actual - expected) < 1e-9;
const T0 = Date.parse('2026-05-01T12:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const filterParam = (conditions: unknown[]) => `filter=${encodeURIComponent(JSON.stringify(conditions))}`;
let n = 0;
const ev = (type: string, body: Record<string, unknown>, timestamp = at(0)) => ({
  id: `compat-${++n}`,
  type,
  timestamp,
  body,
});

for (const backend of STORE_BACKENDS) {
  t.test(`Langfuse compatibility on ${backend}`, async (t) => {
    const { s, db, key } = await startPublicApiService(t, backend);
    const k = auth(key);
    const get = async (path: string) => {
      const r = await call(s, 'GET', path, k);
      if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body;
    };
    const ingest = async (...batch: unknown[]) => {
      const r = await call(s, 'POST', '/ingestion', k, { batch });
      if (r.status !== 207 || r.body.errors.length > 0) throw new Error(`ingestion failed: ${JSON.stringify(r.body)}`);
    };
    const ids = (body: { data: { id: string }[] }) => body.data.map((x) => x.id).sort();

    t.test(
      'trace latency runs from the earliest observation start to the latest observation end, on every surface',
      async (t) => {
        await ingest(
          // Observations from T−100 s to T, the trace created at T: 100 s, not 0.
          ev('trace-create', { id: 'lat-a', timestamp: at(0), sessionId: 'lat-session' }),
          ev('span-create', { id: 'lat-a-1', traceId: 'lat-a', startTime: at(-100), endTime: at(-50) }),
          ev('generation-create', { id: 'lat-a-2', traceId: 'lat-a', startTime: at(-20), endTime: at(0) }),
          // A trace created 1 s before its only 2 s span: 2, not 3.
          ev('trace-create', { id: 'lat-b', timestamp: at(-1), sessionId: 'lat-session' }),
          ev('span-create', { id: 'lat-b-1', traceId: 'lat-b', startTime: at(0), endTime: at(2) }),
          // Observations without an end: from the first start to the last start.
          ev('trace-create', { id: 'lat-c', timestamp: at(0) }),
          ev('event-create', { id: 'lat-c-1', traceId: 'lat-c', startTime: at(1) }),
          ev('event-create', { id: 'lat-c-2', traceId: 'lat-c', startTime: at(5) }),
          // No observations: 0, as Langfuse answers.
          ev('trace-create', { id: 'lat-d', timestamp: at(0), output: 'done' }),
        );
        const expected: Record<string, number> = { 'lat-a': 100, 'lat-b': 2, 'lat-c': 4, 'lat-d': 0 };
        for (const [id, latency] of Object.entries(expected)) {
          t.equal((await get(`/traces/${id}`)).latency, latency, `GET /traces/${id}`);
          t.equal(
            (await get(`/traces?${filterParam([{ type: 'string', column: 'id', operator: '=', value: id }])}`)).data[0]
              .latency,
            latency,
            `GET /traces: ${id}`,
          );
        }
        const session = await get('/sessions/lat-session');
        t.same(
          session.traces.map((x: any) => [x.id, x.latency]),
          [
            ['lat-b', 2],
            ['lat-a', 100],
          ],
          "the session's traces",
        );
        const slow = await get(
          `/traces?${filterParam([{ type: 'number', column: 'latency', operator: '>=', value: 50 }])}`,
        );
        t.same(ids(slow), ['lat-a'], 'the latency filter uses the same definition');
      },
    );

    t.test("observations carry the matched model's unit prices and the linked prompt's id", async (t) => {
      const v1 = await call(s, 'POST', '/v2/prompts', k, { name: 'linked', prompt: 'one' });
      const v2 = await call(s, 'POST', '/v2/prompts', k, { name: 'linked', prompt: 'two' });
      await ingest(
        ev('generation-create', {
          id: 'price-calc',
          traceId: 'price-tr',
          model: 'gpt-4o',
          usageDetails: { input: 10, output: 10 },
          promptName: 'linked',
          promptVersion: 2,
        }),
        ev('generation-create', {
          id: 'price-given',
          traceId: 'price-tr',
          model: 'gpt-4o',
          usageDetails: { input: 10 },
          costDetails: { total: 1 },
          promptName: 'linked',
          promptVersion: 1,
        }),
        ev('generation-create', {
          id: 'price-none',
          traceId: 'price-tr',
          model: 'no-such-model',
          promptName: 'unknown',
          promptVersion: 1,
        }),
      );
      for (const [id, promptId] of [
        ['price-calc', v2.body.id],
        ['price-given', v1.body.id],
      ]) {
        const o = await get(`/observations/${id}`);
        t.equal(o.modelId, 'builtin:gpt-4o', `${id}: the matched model`);
        t.ok(close(o.inputPrice, 2.5e-6) && close(o.outputPrice, 1e-5), `${id}: its input and output prices`);
        t.equal(o.totalPrice, null, 'the model has no total price');
        t.equal(o.promptId, promptId, `${id}: the prompt version's id`);
      }
      const none = await get('/observations/price-none');
      t.same(
        [none.modelId, none.inputPrice, none.outputPrice, none.totalPrice, none.promptId],
        [null, null, null, null, null],
        'nothing matched, nothing linked',
      );
      const inTrace = (await get('/traces/price-tr')).observations.find((o: any) => o.id === 'price-calc');
      t.match(inTrace, { modelId: 'builtin:gpt-4o', promptId: v2.body.id }, "the trace's observations too");
      t.ok(
        close(
          (await get('/observations?traceId=price-tr')).data.find((o: any) => o.id === 'price-calc').inputPrice,
          2.5e-6,
        ),
        'the list too',
      );
      const v2list = await get('/v2/observations?traceId=price-tr&fields=core,model,prompt');
      const calc = v2list.data.find((o: any) => o.id === 'price-calc');
      t.match(
        calc,
        {
          modelId: 'builtin:gpt-4o',
          inputPrice: '0.0000025',
          outputPrice: '0.00001',
          totalPrice: null,
          promptId: v2.body.id,
        },
        "v2: prices as decimal strings (Langfuse's wire format)",
      );
      const core = (await get('/v2/observations?traceId=price-tr')).data.find((o: any) => o.id === 'price-calc');
      t.same([core.modelId, core.inputPrice], [null, null], 'v2 fills the model fields only with the model group');
    });

    t.test('OpenAI snapshot names with four-digit suffixes are priced as their model', async (t) => {
      const usage = { input: 1_000_000, output: 1_000_000 };
      const cases: [string, number][] = [
        ['gpt-3.5-turbo-0125', 2],
        ['gpt-4-0613', 90],
        ['gpt-4-0314', 90],
        ['gpt-3.5-turbo-1106', 3],
        ['openai/gpt-4-32k-0613', 180],
      ];
      await ingest(
        ...cases.map(([model], i) =>
          ev('generation-create', { id: `snap-${i}`, traceId: 'snap-tr', model, usageDetails: usage }),
        ),
      );
      for (const [i, [model, cost]] of cases.entries())
        t.ok(close((await get(`/observations/snap-${i}`)).calculatedTotalCost, cost), `${model}: ${cost} USD`);
      t.match(await get('/models/builtin:gpt-4'), { modelName: 'gpt-4', isLangfuseManaged: true });
    });

    t.test('unknown query parameters and body fields are ignored; known ones stay checked', async (t) => {
      for (const path of [
        '/traces?sdkExtra=1',
        '/observations?x=1',
        '/v2/observations?x=1',
        '/sessions?x=1',
        '/scores?x=1',
        '/v2/scores?x=1',
        '/v2/prompts?x=1',
        '/v2/datasets?x=1',
        '/datasets?x=1',
        '/dataset-items?x=1',
        '/models?x=1',
        '/score-configs?x=1',
        '/llm-connections?x=1',
        '/annotation-queues?x=1',
      ]) {
        t.equal((await call(s, 'GET', path, k)).status, 200, path);
      }
      t.equal(
        (await call(s, 'GET', '/traces?limit=0&sdkExtra=1', k)).status,
        400,
        'a known parameter is still checked',
      );

      const dataset = await call(s, 'POST', '/v2/datasets', k, { name: 'extra-ds', owner: 'me', description: 'd' });
      t.equal(dataset.status, 200);
      t.notOk('owner' in dataset.body, 'the unknown field is dropped');
      t.equal(
        (await call(s, 'POST', '/v2/datasets', k, { name: 5, owner: 'me' })).status,
        400,
        'a known field keeps its rule',
      );
      const prompt = await call(s, 'POST', '/v2/prompts', k, {
        name: 'extra-chat',
        type: 'chat',
        source: 'sdk',
        prompt: [
          { role: 'system', content: 'hi', extra: 1 },
          { type: 'placeholder', name: 'history', extra: 2 },
        ],
      });
      t.equal(prompt.status, 201);
      t.same(
        prompt.body.prompt,
        [
          { role: 'system', content: 'hi' },
          { type: 'placeholder', name: 'history' },
        ],
        'nested unknown fields dropped, each message kept',
      );
      const model = await call(s, 'POST', '/models', k, {
        modelName: 'extra-model',
        matchPattern: '^extra-model$',
        colour: 'red',
        pricingTiers: [
          { name: 'Standard', isDefault: true, priority: 0, conditions: [], prices: { input: 1 }, note: 'x' },
          {
            name: 'Big',
            isDefault: false,
            priority: 1,
            conditions: [{ source: 'metadata', key: 'tier', operator: 'in', values: ['big'], extra: true }],
            prices: { input: 2 },
          },
        ],
      });
      t.equal(model.status, 200, JSON.stringify(model.body));
      t.same(model.body.pricingTiers[1].conditions, [
        { source: 'metadata', key: 'tier', operator: 'in', values: ['big'] },
      ]);
      const config = await call(s, 'POST', '/score-configs', k, {
        name: 'extra-config',
        dataType: 'NUMERIC',
        color: 'red',
      });
      t.equal(config.status, 200);
      t.equal(
        (await call(s, 'PATCH', `/score-configs/${config.body.id}`, k, { description: 'x', dataType: 'TEXT' })).body
          .dataType,
        'NUMERIC',
        'a field PATCH does not take is ignored',
      );
      t.equal((await call(s, 'DELETE', '/traces', k, { traceIds: ['nothing-here'], reason: 'cleanup' })).status, 200);
      t.equal(
        (
          await call(s, 'POST', '/dataset-items', k, {
            datasetName: 'extra-ds',
            id: 'extra-item',
            input: 1,
            extra: true,
          })
        ).status,
        200,
      );
      t.equal(
        (await call(s, 'POST', '/annotation-queues', k, { name: 'extra-queue', scoreConfigIds: [], extra: true }))
          .status,
        200,
      );
      const unsupported = await call(s, 'POST', '/dataset-run-items', k, {
        runName: 'r',
        datasetItemId: 'extra-item',
        traceId: 't',
        datasetVersion: '2026-01-01T00:00:00Z',
      });
      t.equal(unsupported.status, 400, 'a Langfuse field we do not implement is refused rather than ignored');
      t.match(JSON.stringify(unsupported.body), /datasetVersion/);
    });

    t.test('an empty filter is as if absent', async (t) => {
      for (const path of ['/traces', '/observations', '/v2/observations', '/scores', '/v2/scores']) {
        const r = await call(s, 'GET', `${path}?filter=`, k);
        t.equal(r.status, 200, `${path}?filter=`);
        t.same(r.body.data, (await get(path)).data, `${path}: the unfiltered list`);
      }
    });

    t.test(
      'scores: v1 answers trace scores only, comma-separated ids, traceTags, datasetRunId and the metadata filter',
      async (t) => {
        await ingest(
          ev('trace-create', { id: 'sc-tr-1', tags: ['red', 'big'] }),
          ev('trace-create', { id: 'sc-tr-2', tags: ['red'] }),
          ev('score-create', {
            id: 'sc-trace-1',
            traceId: 'sc-tr-1',
            observationId: 'obs-a',
            name: 'q',
            value: 1,
            metadata: { judge: 'alice' },
          }),
          ev('score-create', {
            id: 'sc-trace-2',
            traceId: 'sc-tr-2',
            observationId: 'obs-b',
            name: 'q',
            value: 2,
            metadata: { judge: 'bob' },
          }),
          ev('score-create', { id: 'sc-trace-3', traceId: 'sc-tr-2', observationId: 'obs-c', name: 'q', value: 3 }),
          ev('score-create', { id: 'sc-session', sessionId: 'sess-1', name: 'q', value: 4 }),
          ev('score-create', { id: 'sc-run', datasetRunId: 'run-1', name: 'q', value: 5 }),
        );
        t.same(ids(await get('/scores?name=q')), ['sc-trace-1', 'sc-trace-2', 'sc-trace-3'], 'v1: trace scores only');
        t.equal((await get('/scores?name=q')).meta.totalItems, 3);
        t.same(
          ids(await get('/v2/scores?name=q')),
          ['sc-run', 'sc-session', 'sc-trace-1', 'sc-trace-2', 'sc-trace-3'],
          'v2: every score',
        );
        t.equal((await call(s, 'GET', '/scores/sc-session', k)).status, 404, 'v1 by id: not a trace score');
        t.equal((await call(s, 'GET', '/scores/sc-run', k)).status, 404);
        t.equal((await call(s, 'GET', '/v2/scores/sc-session', k)).status, 200);

        t.same(
          ids(await get('/v2/scores?observationId=obs-a,obs-c')),
          ['sc-trace-1', 'sc-trace-3'],
          'observationId: any of a comma list',
        );
        t.same(ids(await get('/v2/scores?scoreIds=sc-run,sc-session')), ['sc-run', 'sc-session']);
        t.same(ids(await get('/scores?traceTags=red')), ['sc-trace-1', 'sc-trace-2', 'sc-trace-3'], 'traceTags');
        t.same(ids(await get('/scores?traceTags=red,big')), ['sc-trace-1'], 'traceTags: all of a comma list');
        t.same(
          ids(await get('/scores?traceTags=red&traceTags=big')),
          ['sc-trace-1'],
          'traceTags: all of repeated values',
        );
        t.same(ids(await get('/v2/scores?datasetRunId=run-1')), ['sc-run'], 'datasetRunId');
        const byJudge = await get(
          `/v2/scores?${filterParam([{ type: 'stringObject', column: 'metadata', key: 'judge', operator: '=', value: 'bob' }])}`,
        );
        t.same(ids(byJudge), ['sc-trace-2'], 'the structured filter on metadata');
        const byValue = await get(
          `/v2/scores?name=q&${filterParam([{ type: 'number', column: 'value', operator: '>=', value: 3 }])}`,
        );
        t.same(ids(byValue), ['sc-run', 'sc-session', 'sc-trace-3']);
        const bad = await call(
          s,
          'GET',
          `/v2/scores?${filterParam([{ type: 'string', column: 'nope', operator: '=', value: 'x' }])}`,
          k,
        );
        t.equal(bad.status, 400);
        t.match(bad.body.error, [{ path: ['filter'] }]);
      },
    );

    t.test(
      'comma-separated environments and tags on traces and observations, as Langfuse splits a single value',
      async (t) => {
        await ingest(
          ev('trace-create', { id: 'env-1', environment: 'alpha', tags: ['x', 'y'] }),
          ev('trace-create', { id: 'env-2', environment: 'beta', tags: ['x'] }),
          ev('span-create', { id: 'env-o1', traceId: 'env-1', environment: 'alpha' }),
          ev('span-create', { id: 'env-o2', traceId: 'env-2', environment: 'beta' }),
        );
        t.same(ids(await get('/traces?environment=alpha,beta')), ['env-1', 'env-2']);
        t.same(ids(await get('/observations?environment=alpha,beta')), ['env-o1', 'env-o2']);
        t.same(ids(await get('/v2/observations?environment=alpha,beta')), ['env-o1', 'env-o2']);
        t.same(ids(await get('/traces?tags=x,y')), ['env-1'], 'tags: all of');
      },
    );

    t.test('POST /models takes a date-only startDate', async (t) => {
      const r = await call(s, 'POST', '/models', k, {
        modelName: 'dated',
        matchPattern: '^dated$',
        startDate: '2023-12-01',
        inputPrice: 1,
      });
      t.equal(r.status, 200, JSON.stringify(r.body));
      t.equal(r.body.startDate, '2023-12-01T00:00:00.000Z', 'midnight UTC');
      t.equal(
        (
          await call(s, 'POST', '/models', k, {
            modelName: 'dated',
            matchPattern: '^dated$',
            startDate: '2023-13-01',
            inputPrice: 1,
          })
        ).status,
        400,
      );
    });

    t.test('deleting a dataset item keeps the run items that refer to it', async (t) => {
      await call(s, 'POST', '/v2/datasets', k, { name: 'keep-runs' });
      for (const id of ['keep-1', 'keep-2'])
        await call(s, 'POST', '/dataset-items', k, { datasetName: 'keep-runs', id, input: id });
      for (const id of ['keep-1', 'keep-2'])
        await call(s, 'POST', '/dataset-run-items', k, { runName: 'run', datasetItemId: id, traceId: `tr-${id}` });
      t.same(await call(s, 'DELETE', '/dataset-items/keep-1', k), {
        status: 200,
        body: { message: 'Dataset item successfully deleted' },
      });
      const run = await get('/datasets/keep-runs/runs/run');
      t.same(
        run.datasetRunItems.map((i: any) => i.datasetItemId).sort(),
        ['keep-1', 'keep-2'],
        'the run still shows all its results',
      );
      t.equal((await get(`/dataset-run-items?datasetId=${run.datasetId}&runName=run`)).meta.totalItems, 2);
      t.equal((await call(s, 'GET', '/dataset-items/keep-1', k)).status, 404, 'the item itself is gone');
    });

    t.test('prompt composition: references resolve when fetched, resolve=false gives the raw text', async (t) => {
      const create = (body: Record<string, unknown>) => call(s, 'POST', '/v2/prompts', k, body);
      const base = await create({ name: 'base', prompt: 'Be kind.', labels: ['production'] });
      await create({ name: 'base', prompt: 'Be brief.' });
      const inner = await create({
        name: 'inner',
        prompt: 'Rules: @@@langfusePrompt:name=base|version=2@@@',
        labels: ['production'],
      });
      const raw =
        'Intro. @@@langfusePrompt:name=base|label=production@@@ Then @@@langfusePrompt:name=inner|label=production@@@ End.';
      const outer = await create({ name: 'outer', prompt: raw, labels: ['production'] });
      t.equal(outer.status, 201);
      t.equal(outer.body.prompt, raw, 'stored and answered as written');

      const resolved = await get('/v2/prompts/outer');
      t.equal(resolved.prompt, 'Intro. Be kind. Then Rules: Be brief. End.');
      t.same(resolved.resolutionGraph, {
        root: { id: outer.body.id, name: 'outer', version: 1 },
        dependencies: {
          [outer.body.id]: [
            { id: base.body.id, name: 'base', version: 1 },
            { id: inner.body.id, name: 'inner', version: 1 },
          ],
          [inner.body.id]: [{ id: (await get('/v2/prompts/base?version=2')).id, name: 'base', version: 2 }],
        },
      });
      const unresolved = await get('/v2/prompts/outer?resolve=false');
      t.equal(unresolved.prompt, raw);
      t.equal(unresolved.resolutionGraph, null);
      t.equal((await get('/v2/prompts/base')).resolutionGraph, null, 'nothing to resolve');

      const chat = await create({
        name: 'chat-outer',
        type: 'chat',
        labels: ['production'],
        prompt: [
          { role: 'system', content: '@@@langfusePrompt:name=base|label=production@@@ "quoted"' },
          { type: 'placeholder', name: 'history' },
        ],
      });
      t.equal(chat.status, 201);
      t.same((await get('/v2/prompts/chat-outer')).prompt, [
        { role: 'system', content: 'Be kind. "quoted"' },
        { type: 'placeholder', name: 'history' },
      ]);

      const missing = await create({ name: 'broken', prompt: '@@@langfusePrompt:name=nowhere|label=production@@@' });
      t.equal(missing.status, 400);
      t.match(missing.body.message, /Prompt dependency not found: nowhere/);
      const chatDependency = await create({
        name: 'on-chat',
        prompt: '@@@langfusePrompt:name=chat-outer|label=production@@@',
      });
      t.equal(chatDependency.status, 400);
      t.match(chatDependency.body.message, /not a text prompt/);
      // A new version of base that pulls in outer, which pulls in base: a cycle.
      const cycle = await create({
        name: 'base',
        prompt: '@@@langfusePrompt:name=outer|label=production@@@',
        labels: ['production'],
      });
      t.equal(cycle.status, 400);
      t.match(cycle.body.message, /Circular dependency detected/);
      t.equal((await get('/v2/prompts/base')).prompt, 'Be kind.', 'the refused version was not stored');

      for (let i = 5; i >= 1; i--) {
        const r = await create({
          name: `depth-${i}`,
          prompt: i === 5 ? 'bottom' : `@@@langfusePrompt:name=depth-${i + 1}|label=production@@@`,
          labels: ['production'],
        });
        t.equal(r.status, 201, `depth-${i}`);
      }
      t.equal((await get('/v2/prompts/depth-1')).prompt, 'bottom', 'four levels of references resolve');
      const tooDeep = await create({ name: 'depth-0', prompt: '@@@langfusePrompt:name=depth-1|label=production@@@' });
      t.equal(tooDeep.status, 400);
      t.match(tooDeep.body.message, /Maximum nesting depth exceeded \(5\)/);

      // Deleting what another prompt uses is refused; a version or label no other version keeps.
      await create({ name: 'fleeting', prompt: 'here', labels: ['production', 'staging'] });
      await create({ name: 'fleeting', prompt: 'there' });
      await create({
        name: 'uses-fleeting',
        prompt: 'x @@@langfusePrompt:name=fleeting|version=1@@@ @@@langfusePrompt:name=fleeting|label=staging@@@',
        labels: ['production'],
      });
      for (const path of [
        '/v2/prompts/fleeting',
        '/v2/prompts/fleeting?version=1',
        '/v2/prompts/fleeting?label=staging',
      ]) {
        const refused = await call(s, 'DELETE', path, k);
        t.equal(refused.status, 400, `DELETE ${path}`);
        t.match(
          refused.body.message,
          /Other prompts are depending on prompt versions you are trying to delete:\n\nuses-fleeting v1 depends on fleeting v1/,
        );
      }
      t.equal((await call(s, 'DELETE', '/v2/prompts/fleeting?version=2', k)).status, 204, 'a version nothing uses');
      // A reference that stopped resolving (the dashboard sets exact labels) answers 409, as Langfuse's resolution does.
      await setPromptLabels(db, 'default', 'fleeting', 1, ['production']);
      const dangling = await call(s, 'GET', '/v2/prompts/uses-fleeting', k);
      t.equal(dangling.status, 409);
      t.match(dangling.body, {
        message: /Prompt dependency not found: fleeting - label staging/,
        error: 'ConflictError',
      });
      t.match(
        (await get('/v2/prompts/uses-fleeting?resolve=false')).prompt,
        /^x @@@langfusePrompt:name=fleeting\|version=1@@@/,
      );
      t.equal((await get('/v2/prompts/base?resolve=false&label=production')).prompt, 'Be kind.');
      const malformed = await create({
        name: 'malformed',
        prompt: '@@@langfusePrompt:label=production|name=base@@@ @@@langfusePrompt:name=base@@@',
        labels: ['production'],
      });
      t.equal(malformed.status, 201, 'tags Langfuse does not read are text');
      t.equal(
        (await get('/v2/prompts/malformed')).prompt,
        '@@@langfusePrompt:label=production|name=base@@@ @@@langfusePrompt:name=base@@@',
      );
    });
  });
}
