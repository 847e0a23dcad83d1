// Datasets, dataset items, runs and run items of the public API (docs/public-api.md "Datasets and score configs"):
// upserts, folder-like names in paths, paging, 400s and 404s, the legacy routes, cascades, key kinds. Both backends.
import t from 'tap';
import { getDatasetItem } from '../../src/platform/store/repos/dataset-items.ts';
import { getDatasetByName } from '../../src/platform/store/repos/datasets.ts';
import { assertProjectRouteKeys, type PublicRoute } from '../helpers/project-route-keys.ts';
import { basicAuth as auth, callAdmin, startPublicApiService } from '../helpers/public-api.ts';
import type { TestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';

const call = (s: TestService, method: string, path: string, authorization: string, body?: unknown) =>
  callAdmin(s, method, `/api/public${path}`, authorization, body);

const FOLDER = 'evals/qa/v1';
const ENCODED = encodeURIComponent(FOLDER);

for (const backend of STORE_BACKENDS) {
  t.test(`datasets on ${backend}`, async (t) => {
    const { s, db, key, ingestKey, orgKey } = await startPublicApiService(t, backend);
    const k = auth(key);
    const count = async (table: string) =>
      Number((await db.query<{ n: unknown }>(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);

    t.test('POST /v2/datasets creates, and upserts by name', async (t) => {
      const created = await call(s, 'POST', '/v2/datasets', k, {
        name: FOLDER,
        description: 'qa set',
        metadata: { team: 'a' },
        inputSchema: { type: 'object' },
      });
      t.equal(created.status, 200);
      t.match(created.body, {
        id: String,
        name: FOLDER,
        description: 'qa set',
        metadata: { team: 'a' },
        inputSchema: { type: 'object' },
        expectedOutputSchema: null,
        projectId: 'default',
      });
      const again = await call(s, 'POST', '/v2/datasets', k, { name: FOLDER, description: 'QA set', metadata: null });
      t.equal(again.body.id, created.body.id, 'the same dataset');
      t.match(
        await getDatasetByName(db, 'default', FOLDER),
        { description: 'QA set', metadata: { team: 'a' }, inputSchema: { type: 'object' } },
        'given fields replace, absent or null keep',
      );
      t.equal(await count('datasets'), 1);
      for (const name of ['plain', 'second']) t.equal((await call(s, 'POST', '/v2/datasets', k, { name })).status, 200);
    });

    t.test('POST /v2/datasets and /datasets refuse bad bodies', async (t) => {
      const refusals: [unknown, RegExp][] = [
        [{}, /"name".*is required/],
        [{ name: '' }, /must not be empty/],
        [{ name: 'x', description: 5 }, /"description"/],
        [{ name: 'x', inputSchema: 'string' }, /"inputSchema"/],
        [{ name: 'x', owner: 'me', description: 5 }, /"description"/],
      ];
      for (const path of ['/v2/datasets', '/datasets']) {
        for (const [body, message] of refusals) {
          const r = await call(s, 'POST', path, k, body);
          t.equal(r.status, 400, `${path} ${JSON.stringify(body)}`);
          t.equal(r.body.message, 'Invalid request data');
          t.match(JSON.stringify(r.body.error), message);
        }
      }
      t.equal((await call(s, 'POST', '/v2/datasets', k, 'not json')).status, 400);
      t.equal(await count('datasets'), 3, 'nothing refused was stored');
      const extra = await call(s, 'POST', '/v2/datasets', k, { name: 'plain', owner: 'me' });
      t.equal(extra.status, 200, 'an unknown field is ignored, as Langfuse does');
      t.notOk('owner' in extra.body);
    });

    t.test('GET /v2/datasets/{datasetName}: encoded folder names, 404', async (t) => {
      const r = await call(s, 'GET', `/v2/datasets/${ENCODED}`, k);
      t.equal(r.status, 200);
      t.match(r.body, { name: FOLDER, description: 'QA set' });
      t.equal((await call(s, 'GET', `/v2/datasets/${FOLDER}`, k)).status, 404, 'an unencoded slash is another path');
      t.same(await call(s, 'GET', '/v2/datasets/missing', k), {
        status: 404,
        body: { message: 'Dataset not found', error: 'NotFoundError' },
      });
      t.same(await call(s, 'GET', '/v2/datasets/%20', k), {
        status: 404,
        body: { message: 'Dataset not found', error: 'NotFoundError' },
      });
    });

    t.test('GET /v2/datasets pages newest first', async (t) => {
      const all = await call(s, 'GET', '/v2/datasets', k);
      t.same(
        all.body.data.map((d: any) => d.name),
        ['second', 'plain', FOLDER],
      );
      t.same(all.body.meta, { page: 1, limit: 50, totalItems: 3, totalPages: 1 });
      const page = await call(s, 'GET', '/v2/datasets?page=2&limit=2', k);
      t.same(
        page.body.data.map((d: any) => d.name),
        [FOLDER],
      );
      t.same(page.body.meta, { page: 2, limit: 2, totalItems: 3, totalPages: 2 });
      t.equal((await call(s, 'GET', '/v2/datasets?limit=100', k)).status, 200);
      for (const query of ['limit=101', 'limit=0', 'page=0']) {
        const r = await call(s, 'GET', `/v2/datasets?${query}`, k);
        t.equal(r.status, 400, query);
        t.equal(r.body.message, 'Invalid request data');
      }
      t.equal(
        (await call(s, 'GET', '/v2/datasets?name=plain', k)).body.meta.totalItems,
        3,
        'an unknown parameter is ignored, as Langfuse does',
      );
    });

    const items: Record<string, any> = {};

    t.test('POST /dataset-items creates, upserts by id, refuses an id of another dataset', async (t) => {
      const generated = await call(s, 'POST', '/dataset-items', k, {
        datasetName: FOLDER,
        input: { q: '2+2' },
        expectedOutput: '4',
        metadata: { level: 1 },
        sourceTraceId: 'tr-src',
      });
      t.equal(generated.status, 200);
      t.match(generated.body, {
        id: /^[0-9a-f-]{36}$/,
        status: 'ACTIVE',
        input: { q: '2+2' },
        expectedOutput: '4',
        metadata: { level: 1 },
        sourceTraceId: 'tr-src',
        sourceObservationId: null,
        datasetName: FOLDER,
        datasetId: String,
        createdAt: String,
        updatedAt: String,
      });
      t.notOk('projectId' in generated.body);
      t.same(generated.body.mediaReferences, [], 'no media references, but the field the Langfuse Python SDK requires');
      items.generated = generated.body;
      const named = await call(s, 'POST', '/dataset-items', k, { datasetName: FOLDER, id: 'item-1', input: 'hello' });
      t.match(named.body, { id: 'item-1', input: 'hello', expectedOutput: null });
      const updated = await call(s, 'POST', '/dataset-items', k, {
        datasetName: FOLDER,
        id: 'item-1',
        expectedOutput: 'hi',
        input: null,
      });
      t.match(
        updated.body,
        { id: 'item-1', input: 'hello', expectedOutput: 'hi' },
        'given fields replace, absent or null keep',
      );
      t.match(await getDatasetItem(db, 'default', 'item-1'), {
        input: 'hello',
        expectedOutput: 'hi',
        status: 'ACTIVE',
        datasetName: FOLDER,
      });
      const archived = await call(s, 'POST', '/dataset-items', k, {
        datasetName: FOLDER,
        id: 'item-archived',
        input: 'old',
        status: 'ARCHIVED',
      });
      t.equal(archived.body.status, 'ARCHIVED');
      await call(s, 'POST', '/dataset-items', k, {
        datasetName: 'plain',
        id: 'plain-1',
        input: 1,
        sourceObservationId: 'obs-src',
      });

      const taken = await call(s, 'POST', '/dataset-items', k, { datasetName: 'plain', id: 'item-1', input: 'moved?' });
      t.same(taken, {
        status: 409,
        body: {
          message: `The dataset item with id item-1 already exists in a dataset other than plain`,
          error: 'ConflictError',
        },
      });
      t.match(
        await getDatasetItem(db, 'default', 'item-1'),
        { input: 'hello', datasetName: FOLDER },
        'the item did not move',
      );
      t.same(await call(s, 'POST', '/dataset-items', k, { datasetName: 'missing', input: 1 }), {
        status: 404,
        body: { message: 'Dataset not found', error: 'NotFoundError' },
      });
      const refusals: [unknown, RegExp][] = [
        [{ input: 1 }, /"datasetName".*is required/],
        [{ datasetName: FOLDER, status: 'DELETED' }, /"status".*must be one of/],
        [{ datasetName: FOLDER, id: '' }, /"id".*must not be empty/],
        [{ datasetName: FOLDER, id: 'x'.repeat(256) }, /"id"/],
      ];
      for (const [body, message] of refusals) {
        const r = await call(s, 'POST', '/dataset-items', k, body);
        t.equal(r.status, 400, JSON.stringify(body).slice(0, 80));
        t.match(JSON.stringify(r.body.error), message);
      }
      t.equal(
        (await call(s, 'POST', '/dataset-items', k, { datasetName: FOLDER, id: 'x'.repeat(255) })).status,
        200,
        'an id of 255 characters is accepted',
      );
      await call(s, 'DELETE', `/dataset-items/${'x'.repeat(255)}`, k);
      t.equal(await count('dataset_items'), 4);
    });

    t.test('GET /dataset-items lists ACTIVE items with filters and paging', async (t) => {
      const ids = async (query: string) => {
        const r = await call(s, 'GET', `/dataset-items?${query}`, k);
        t.equal(r.status, 200, query);
        return r.body.data.map((i: any) => i.id);
      };
      t.same(await ids(''), ['plain-1', 'item-1', items.generated.id], 'newest first, archived left out');
      t.same(await ids(`datasetName=${ENCODED}`), ['item-1', items.generated.id]);
      t.same(await ids('sourceTraceId=tr-src'), [items.generated.id]);
      t.same(await ids('sourceObservationId=obs-src'), ['plain-1']);
      const page = await call(s, 'GET', '/dataset-items?limit=1&page=3', k);
      t.same(page.body.meta, { page: 3, limit: 1, totalItems: 3, totalPages: 3 });
      t.same(
        page.body.data.map((i: any) => i.id),
        [items.generated.id],
      );
      t.equal((await call(s, 'GET', '/dataset-items?limit=100', k)).status, 200);
      t.equal((await call(s, 'GET', '/dataset-items?limit=101', k)).status, 400);
      t.equal(
        (await call(s, 'GET', '/dataset-items?version=2026-01-01T00:00:00Z', k)).status,
        400,
        'point-in-time versions are not supported',
      );
      t.same(await call(s, 'GET', '/dataset-items?datasetName=missing', k), {
        status: 404,
        body: { message: 'Dataset not found', error: 'NotFoundError' },
      });
    });

    t.test('GET /dataset-items/{id}', async (t) => {
      const r = await call(s, 'GET', '/dataset-items/item-archived', k);
      t.equal(r.status, 200);
      t.match(r.body, { id: 'item-archived', status: 'ARCHIVED', input: 'old', datasetName: FOLDER });
      t.same(await call(s, 'GET', '/dataset-items/missing', k), {
        status: 404,
        body: { message: 'Dataset item not found', error: 'NotFoundError' },
      });
    });

    t.test('legacy POST /datasets, GET /datasets and GET /datasets/{name}', async (t) => {
      const created = await call(s, 'POST', '/datasets', k, { name: 'legacy', description: 'v1' });
      t.equal(created.status, 200);
      t.match(created.body, { name: 'legacy', description: 'v1', items: [], runs: [] });
      const one = await call(s, 'GET', `/datasets/${ENCODED}`, k);
      t.equal(one.status, 200);
      t.match(one.body, { name: FOLDER, runs: [] });
      t.same(
        one.body.items.map((i: any) => i.id),
        ['item-1', items.generated.id],
      );
      t.match(one.body.items[0], { datasetName: FOLDER, input: 'hello' });
      const list = await call(s, 'GET', '/datasets?limit=2&page=2', k);
      t.same(list.body.meta, { page: 2, limit: 2, totalItems: 4, totalPages: 2 });
      t.same(
        list.body.data.map((d: any) => [d.name, d.items]),
        [
          ['plain', ['plain-1']],
          [FOLDER, ['item-1', items.generated.id]],
        ],
      );
      t.equal((await call(s, 'GET', '/datasets?limit=101', k)).status, 400);
      t.equal((await call(s, 'GET', '/datasets/missing', k)).status, 404);
    });

    let datasetId = '';

    t.test('POST /dataset-run-items creates runs by name and links traces', async (t) => {
      await call(s, 'POST', '/ingestion', k, {
        batch: [
          {
            id: 'e1',
            type: 'span-create',
            timestamp: '2026-05-01T00:00:00Z',
            body: { id: 'obs-1', traceId: 'tr-run-2', name: 'step' },
          },
        ],
      });
      const first = await call(s, 'POST', '/dataset-run-items', k, {
        runName: 'run/1',
        runDescription: 'first run',
        metadata: { model: 'm' },
        datasetItemId: 'item-1',
        traceId: 'tr-run-1',
      });
      t.equal(first.status, 200);
      t.match(first.body, {
        id: /^[0-9a-f-]{36}$/,
        datasetRunId: String,
        datasetRunName: 'run/1',
        datasetItemId: 'item-1',
        traceId: 'tr-run-1',
        observationId: null,
        createdAt: String,
        updatedAt: String,
      });
      const second = await call(s, 'POST', '/dataset-run-items', k, {
        runName: 'run/1',
        datasetItemId: items.generated.id,
        observationId: 'obs-1',
        createdAt: '2026-05-02T00:00:00Z',
      });
      t.match(
        second.body,
        {
          datasetRunId: first.body.datasetRunId,
          traceId: 'tr-run-2',
          observationId: 'obs-1',
          createdAt: '2026-05-02T00:00:00.000Z',
        },
        'the trace of the observation; the same run',
      );
      await call(s, 'POST', '/dataset-run-items', k, {
        runName: 'run-2',
        datasetItemId: 'item-1',
        traceId: 'tr-run-3',
      });
      const runs = await db.query<{ name: string; description: string | null; metadata: unknown; dataset_id: string }>(
        'SELECT name, description, metadata, dataset_id FROM dataset_runs ORDER BY created_at',
      );
      t.match(runs.rows, [
        { name: 'run/1', description: 'first run', metadata: { model: 'm' } },
        { name: 'run-2', description: null },
      ]);
      datasetId = runs.rows[0].dataset_id;
      t.equal(await count('dataset_run_items'), 3);

      const refusals: [unknown, number, RegExp][] = [
        [{ runName: 'r', datasetItemId: 'item-1' }, 400, /traceId or observationId is required/],
        [{ datasetItemId: 'item-1', traceId: 't' }, 400, /"runName".*is required/],
        [
          { runName: 'r', datasetItemId: 'item-1', traceId: 't', datasetVersion: '2026-01-01T00:00:00Z' },
          400,
          /"datasetVersion".*point-in-time dataset versions are not supported/,
        ],
        [{ runName: 'r', datasetItemId: 'item-1', traceId: 't', createdAt: 'yesterday' }, 400, /"createdAt".*ISO 8601/],
        [{ runName: 'r', datasetItemId: 'missing', traceId: 't' }, 404, /Dataset item not found/],
        [{ runName: 'r', datasetItemId: 'item-archived', traceId: 't' }, 404, /Dataset item not found/],
        [{ runName: 'r', datasetItemId: 'item-1', observationId: 'obs-missing' }, 404, /Observation not found/],
      ];
      for (const [body, status, message] of refusals) {
        const r = await call(s, 'POST', '/dataset-run-items', k, body);
        t.equal(r.status, status, JSON.stringify(body));
        t.match(JSON.stringify(r.body), message);
      }

      // The item is deleted between the route's check and the insert: the run item is kept, as a run keeps the results
      // of items deleted after them (a deleted item's run items stay).
      await call(s, 'POST', '/dataset-items', k, { datasetName: FOLDER, id: 'item-race', input: 'x' });
      const query = db.query;
      db.query = (async (sql: string, params?: readonly unknown[]) => {
        const r = await query.call(db, sql, params);
        if (sql.includes('FROM dataset_items i') && params?.[1] === 'item-race') {
          db.query = query;
          await query.call(db, "DELETE FROM dataset_items WHERE project_id = 'default' AND id = 'item-race'");
        }
        return r;
      }) as typeof db.query;
      t.teardown(() => {
        db.query = query;
      });
      const raced = await call(s, 'POST', '/dataset-run-items', k, {
        runName: 'r-race',
        datasetItemId: 'item-race',
        traceId: 't',
      });
      t.equal(db.query, query, 'the item was read, then deleted');
      t.match(raced, { status: 200, body: { datasetRunName: 'r-race', datasetItemId: 'item-race' } });
      t.equal(await call(s, 'DELETE', `/datasets/${ENCODED}/runs/r-race`, k).then((r) => r.status), 200);
      t.equal(await count('dataset_runs'), 2, 'refused run items created no run');
    });

    t.test('GET /dataset-run-items', async (t) => {
      const r = await call(
        s,
        'GET',
        `/dataset-run-items?datasetId=${datasetId}&runName=${encodeURIComponent('run/1')}`,
        k,
      );
      t.equal(r.status, 200);
      t.same(
        r.body.data.map((i: any) => i.traceId),
        ['tr-run-1', 'tr-run-2'],
        'newest first (the second was given an earlier createdAt)',
      );
      t.same(r.body.meta, { page: 1, limit: 50, totalItems: 2, totalPages: 1 });
      const paged = await call(s, 'GET', `/dataset-run-items?datasetId=${datasetId}&runName=run%2F1&limit=1&page=2`, k);
      t.same(
        paged.body.data.map((i: any) => i.traceId),
        ['tr-run-2'],
      );
      t.equal(
        (await call(s, 'GET', `/dataset-run-items?datasetId=${datasetId}&runName=run-2&limit=100`, k)).status,
        200,
      );
      t.equal(
        (await call(s, 'GET', `/dataset-run-items?datasetId=${datasetId}&runName=run-2&limit=101`, k)).status,
        400,
      );
      const missing = await call(s, 'GET', `/dataset-run-items?datasetId=${datasetId}`, k);
      t.equal(missing.status, 400);
      t.match(JSON.stringify(missing.body.error), /"runName".*is required/);
      t.same(await call(s, 'GET', `/dataset-run-items?datasetId=${datasetId}&runName=nope`, k), {
        status: 404,
        body: { message: 'Dataset run not found for the given project and dataset id', error: 'NotFoundError' },
      });
    });

    t.test('GET /datasets/{name}/runs and /runs/{runName}', async (t) => {
      const list = await call(s, 'GET', `/datasets/${ENCODED}/runs`, k);
      t.equal(list.status, 200);
      t.same(
        list.body.data.map((r: any) => r.name),
        ['run-2', 'run/1'],
      );
      t.match(list.body.data[1], {
        id: String,
        name: 'run/1',
        description: 'first run',
        metadata: { model: 'm' },
        datasetId,
        datasetName: FOLDER,
        createdAt: String,
        updatedAt: String,
      });
      t.same((await call(s, 'GET', `/datasets/${ENCODED}/runs?limit=1&page=2`, k)).body.meta, {
        page: 2,
        limit: 1,
        totalItems: 2,
        totalPages: 2,
      });
      t.equal((await call(s, 'GET', `/datasets/${ENCODED}/runs?limit=101`, k)).status, 400);
      t.equal((await call(s, 'GET', '/datasets/missing/runs', k)).status, 404);

      const run = await call(s, 'GET', `/datasets/${ENCODED}/runs/${encodeURIComponent('run/1')}`, k);
      t.equal(run.status, 200);
      t.match(run.body, { name: 'run/1', datasetName: FOLDER });
      t.same(
        run.body.datasetRunItems.map((i: any) => [i.datasetItemId, i.traceId, i.datasetRunName]),
        [
          ['item-1', 'tr-run-1', 'run/1'],
          [items.generated.id, 'tr-run-2', 'run/1'],
        ],
      );
      t.same(await call(s, 'GET', `/datasets/${ENCODED}/runs/nope`, k), {
        status: 404,
        body: { message: 'Dataset run not found', error: 'NotFoundError' },
      });
      t.same(
        await call(s, 'GET', '/datasets/plain/runs/run-2', k),
        { status: 404, body: { message: 'Dataset run not found', error: 'NotFoundError' } },
        'a run of another dataset',
      );
      const legacy = await call(s, 'GET', `/datasets/${ENCODED}`, k);
      t.same(legacy.body.runs, ['run-2', 'run/1']);
    });

    t.test(
      'DELETE /datasets/{name}/runs/{runName} takes its run items; DELETE /dataset-items/{id} leaves them to their runs',
      async (t) => {
        t.same(await call(s, 'DELETE', `/datasets/${ENCODED}/runs/run-2`, k), {
          status: 200,
          body: { message: 'Dataset run successfully deleted' },
        });
        t.equal(await count('dataset_runs'), 1);
        t.equal(await count('dataset_run_items'), 2, "the run's items went with it");
        t.equal((await call(s, 'DELETE', `/datasets/${ENCODED}/runs/run-2`, k)).status, 404);
        t.same(await call(s, 'DELETE', '/dataset-items/item-1', k), {
          status: 200,
          body: { message: 'Dataset item successfully deleted' },
        });
        t.notOk(await getDatasetItem(db, 'default', 'item-1'));
        t.equal(
          await count('dataset_run_items'),
          2,
          "the item's run items stay, as in Langfuse: the run keeps all its results",
        );
        const run = await call(s, 'GET', `/datasets/${ENCODED}/runs/${encodeURIComponent('run/1')}`, k);
        t.same(
          run.body.datasetRunItems.map((i: any) => i.datasetItemId),
          ['item-1', items.generated.id],
        );
        t.same(await call(s, 'DELETE', '/dataset-items/item-1', k), {
          status: 404,
          body: { message: 'Dataset item not found', error: 'NotFoundError' },
        });
      },
    );

    t.test('key kinds', async (t) => {
      const routes: PublicRoute[] = [
        ['GET', '/v2/datasets'],
        ['POST', '/v2/datasets', { name: 'k' }],
        ['GET', `/v2/datasets/${ENCODED}`],
        ['GET', '/datasets'],
        ['POST', '/datasets', { name: 'k' }],
        ['GET', `/datasets/${ENCODED}`],
        ['GET', `/datasets/${ENCODED}/runs`],
        ['GET', `/datasets/${ENCODED}/runs/run%2F1`],
        ['DELETE', `/datasets/${ENCODED}/runs/run%2F1`],
        ['GET', '/dataset-items'],
        ['POST', '/dataset-items', { datasetName: FOLDER }],
        ['GET', `/dataset-items/${items.generated.id}`],
        ['DELETE', `/dataset-items/${items.generated.id}`],
        ['GET', `/dataset-run-items?datasetId=${datasetId}&runName=run%2F1`],
        ['POST', '/dataset-run-items', { runName: 'r', datasetItemId: items.generated.id, traceId: 't' }],
      ];
      await assertProjectRouteKeys(t, s, routes, { orgKey, ingestKey });
      t.equal(await count('datasets'), 4, 'nothing was written by refused keys');
      t.equal(
        (await call(s, 'GET', `/dataset-items/${items.generated.id}`, k)).status,
        200,
        'the project key still works',
      );
      t.equal((await call(s, 'GET', '/v2/datasets', 'Basic bm9wZTpub3Bl')).status, 401, 'unknown credentials');
    });
  });
}
