// Score configs of the public API (docs/public-api.md "Datasets and score configs"): create, list, get, patch with the
// rules per data type, and scores checked against their config on POST /scores and ingestion score-create. Both backends.
import t from 'tap';
import { getScoreConfig } from '../../src/platform/store/repos/score-configs.ts';
import { getScore } from '../../src/platform/store/repos/scores.ts';
import { assertProjectRouteKeys, type PublicRoute } from '../helpers/project-route-keys.ts';
import { basicAuth as auth, callAdmin, startPublicApiService } from '../helpers/public-api.ts';
import type { TestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';

const call = (s: TestService, method: string, path: string, authorization: string, body?: unknown) =>
  callAdmin(s, method, `/api/public${path}`, authorization, body);

for (const backend of STORE_BACKENDS) {
  t.test(`score configs on ${backend}`, async (t) => {
    const { s, db, key, ingestKey, orgKey } = await startPublicApiService(t, backend);
    const k = auth(key);
    const ids: Record<string, string> = {};

    t.test('POST /score-configs creates each data type', async (t) => {
      const cases = [
        [
          'numeric',
          { name: 'accuracy', dataType: 'NUMERIC', minValue: 0, maxValue: 1, description: 'share correct' },
          { minValue: 0, maxValue: 1, categories: null },
        ],
        [
          'categorical',
          {
            name: 'tone',
            dataType: 'CATEGORICAL',
            categories: [
              { label: 'rude', value: 0 },
              { label: 'friendly', value: 1 },
            ],
          },
          { minValue: null },
        ],
        [
          'boolean',
          { name: 'correct', dataType: 'BOOLEAN' },
          {
            categories: [
              { label: 'True', value: 1 },
              { label: 'False', value: 0 },
            ],
          },
        ],
        ['text', { name: 'note', dataType: 'TEXT', description: null }, { categories: null, description: null }],
        ['unbounded', { name: 'latency', dataType: 'NUMERIC', minValue: 0 }, { minValue: 0, maxValue: null }],
      ] as const;
      for (const [label, body, expected] of cases) {
        const r = await call(s, 'POST', '/score-configs', k, body);
        t.equal(r.status, 200, label);
        t.match(
          r.body,
          {
            ...body,
            ...expected,
            projectId: 'default',
            isArchived: false,
            id: /^[0-9a-f-]{36}$/,
            createdAt: String,
            updatedAt: String,
          },
          label,
        );
        ids[label] = r.body.id;
        t.match(
          await getScoreConfig(db, 'default', r.body.id),
          { name: body.name, dataType: body.dataType, ...expected },
          `${label} stored`,
        );
      }
    });

    t.test('POST /score-configs refuses configs the rules forbid, naming the field', async (t) => {
      const refusals: [unknown, RegExp][] = [
        [{ dataType: 'NUMERIC' }, /"name".*is required/],
        [{ name: '', dataType: 'NUMERIC' }, /must not be empty/],
        [{ name: 'x', dataType: 'PERCENT' }, /"dataType".*must be one of/],
        [{ name: 'x', dataType: 'NUMERIC', minValue: 1, maxValue: 1 }, /"maxValue".*must be greater than minValue/],
        [{ name: 'x', dataType: 'NUMERIC', minValue: 'low' }, /"minValue"/],
        [
          { name: 'x', dataType: 'NUMERIC', categories: [{ label: 'a', value: 1 }] },
          /only for CATEGORICAL configs, not NUMERIC/,
        ],
        [{ name: 'x', dataType: 'CATEGORICAL' }, /at least one category/],
        [{ name: 'x', dataType: 'CATEGORICAL', categories: [] }, /at least one category/],
        [
          {
            name: 'x',
            dataType: 'CATEGORICAL',
            categories: [
              { label: 'a', value: 1 },
              { label: 'a', value: 2 },
            ],
          },
          /unique labels: \\"a\\" is repeated/,
        ],
        [
          {
            name: 'x',
            dataType: 'CATEGORICAL',
            categories: [
              { label: 'a', value: 1 },
              { label: 'b', value: 1 },
            ],
          },
          /unique values: 1 is repeated/,
        ],
        [{ name: 'x', dataType: 'CATEGORICAL', categories: [{ label: '', value: 1 }] }, /"label".*must not be empty/],
        [
          { name: 'x', dataType: 'CATEGORICAL', categories: [{ label: 'a', value: 1 }], maxValue: 3 },
          /"maxValue".*only for NUMERIC/,
        ],
        [
          { name: 'x', dataType: 'BOOLEAN', categories: [{ label: 'True', value: 1 }] },
          /set by the server for a BOOLEAN config/,
        ],
        [{ name: 'x', dataType: 'TEXT', minValue: 0 }, /only for NUMERIC configs, not TEXT/],
        [{ name: 'x', dataType: 'TEXT', color: 'red', minValue: 0 }, /only for NUMERIC configs, not TEXT/],
      ];
      for (const [body, message] of refusals) {
        const r = await call(s, 'POST', '/score-configs', k, body);
        t.equal(r.status, 400, JSON.stringify(body));
        t.equal(r.body.message, 'Invalid request data');
        t.match(JSON.stringify(r.body.error), message, JSON.stringify(body));
      }
      const count = await db.query<{ n: unknown }>(
        "SELECT count(*) AS n FROM score_configs WHERE project_id = 'default'",
      );
      t.equal(Number(count.rows[0].n), 5, 'nothing refused was stored');
    });

    t.test('GET /score-configs pages newest first; limit 100 is the most', async (t) => {
      const all = await call(s, 'GET', '/score-configs', k);
      t.equal(all.status, 200);
      t.same(
        all.body.data.map((c: any) => c.name),
        ['latency', 'note', 'correct', 'tone', 'accuracy'],
      );
      t.same(all.body.meta, { page: 1, limit: 50, totalItems: 5, totalPages: 1 });
      const second = await call(s, 'GET', '/score-configs?page=2&limit=2', k);
      t.same(
        second.body.data.map((c: any) => c.name),
        ['correct', 'tone'],
      );
      t.same(second.body.meta, { page: 2, limit: 2, totalItems: 5, totalPages: 3 });
      t.same((await call(s, 'GET', '/score-configs?page=4&limit=2', k)).body.data, [], 'a page past the end is empty');
      t.equal((await call(s, 'GET', '/score-configs?limit=100', k)).status, 200);
      t.equal(
        (await call(s, 'GET', '/score-configs?name=tone', k)).body.meta.totalItems,
        5,
        'an unknown parameter is ignored, as Langfuse does',
      );
      for (const query of ['limit=101', 'limit=0', 'page=0', 'page=x']) {
        const r = await call(s, 'GET', `/score-configs?${query}`, k);
        t.equal(r.status, 400, query);
        t.equal(r.body.message, 'Invalid request data');
      }
    });

    t.test('GET /score-configs/{configId}', async (t) => {
      const r = await call(s, 'GET', `/score-configs/${ids.categorical}`, k);
      t.equal(r.status, 200);
      t.match(r.body, {
        id: ids.categorical,
        name: 'tone',
        dataType: 'CATEGORICAL',
        categories: [
          { label: 'rude', value: 0 },
          { label: 'friendly', value: 1 },
        ],
      });
      t.same(await call(s, 'GET', '/score-configs/nope', k), {
        status: 404,
        body: { message: 'Score config not found within authorized project', error: 'NotFoundError' },
      });
    });

    t.test('PATCH /score-configs/{configId} replaces the fields given and keeps the rules', async (t) => {
      const r = await call(s, 'PATCH', `/score-configs/${ids.unbounded}`, k, { maxValue: 10, description: 'ms' });
      t.equal(r.status, 200);
      t.match(r.body, { name: 'latency', minValue: 0, maxValue: 10, description: 'ms', isArchived: false });
      t.match(await getScoreConfig(db, 'default', ids.unbounded), { maxValue: 10, description: 'ms' });
      const renamed = await call(s, 'PATCH', `/score-configs/${ids.categorical}`, k, {
        name: 'voice',
        categories: [{ label: 'warm', value: 2 }],
      });
      t.match(renamed.body, { name: 'voice', categories: [{ label: 'warm', value: 2 }] });
      const bool = await call(s, 'PATCH', `/score-configs/${ids.boolean}`, k, { description: 'yes or no' });
      t.match(
        bool.body,
        {
          categories: [
            { label: 'True', value: 1 },
            { label: 'False', value: 0 },
          ],
          description: 'yes or no',
        },
        'a BOOLEAN config keeps its categories',
      );
      const refusals: [string, unknown, RegExp][] = [
        [ids.unbounded, { minValue: 10 }, /must be greater than minValue/],
        [ids.boolean, { categories: [{ label: 'yes', value: 1 }] }, /set by the server/],
        [ids.categorical, { categories: [] }, /at least one category/],
        [ids.text, { dataType: 'NUMERIC', isArchived: 'yes' }, /"isArchived"/],
      ];
      for (const [id, body, message] of refusals) {
        const bad = await call(s, 'PATCH', `/score-configs/${id}`, k, body);
        t.equal(bad.status, 400, JSON.stringify(body));
        t.match(JSON.stringify(bad.body.error), message);
      }
      t.match(
        await getScoreConfig(db, 'default', ids.unbounded),
        { minValue: 0, maxValue: 10 },
        'a refused patch changes nothing',
      );
      const typed = await call(s, 'PATCH', `/score-configs/${ids.text}`, k, { dataType: 'NUMERIC' });
      t.match(
        typed,
        { status: 200, body: { dataType: 'TEXT' } },
        'dataType, which PATCH does not take, is ignored (Langfuse drops unknown fields)',
      );
      t.equal((await call(s, 'PATCH', '/score-configs/nope', k, { isArchived: true })).status, 404);
    });

    t.test('POST /scores is checked against the config it names', async (t) => {
      await call(s, 'PATCH', `/score-configs/${ids.categorical}`, k, {
        name: 'tone',
        categories: [
          { label: 'rude', value: 0 },
          { label: 'friendly', value: 1 },
        ],
      });
      const accepted: [string, Record<string, unknown>, Record<string, unknown>][] = [
        [
          'numeric at its minimum',
          { configId: ids.numeric, name: 'accuracy', value: 0 },
          { dataType: 'NUMERIC', value: 0 },
        ],
        [
          'numeric at its maximum',
          { configId: ids.numeric, name: 'accuracy', value: 1, dataType: 'NUMERIC' },
          { value: 1 },
        ],
        [
          'a category label becomes its number',
          { configId: ids.categorical, name: 'tone', value: 'friendly' },
          { dataType: 'CATEGORICAL', value: 1, stringValue: 'friendly' },
        ],
        [
          'boolean takes the data type of its config',
          { configId: ids.boolean, name: 'correct', value: 1 },
          { dataType: 'BOOLEAN', value: 1, stringValue: 'True' },
        ],
        [
          "the name is the config's",
          { configId: ids.text, name: 'something else', value: 'fine' },
          { name: 'note', dataType: 'TEXT', stringValue: 'fine' },
        ],
        [
          'annotation with a config',
          { configId: ids.numeric, name: 'accuracy', value: 0.5, source: 'ANNOTATION' },
          { source: 'ANNOTATION', configId: ids.numeric },
        ],
      ];
      for (const [label, body, stored] of accepted) {
        const r = await call(s, 'POST', '/scores', k, { traceId: 'tr-1', ...body });
        t.equal(r.status, 200, label);
        t.match(await getScore(db, 'default', r.body.id), stored, label);
      }
      const read = await call(s, 'GET', `/scores?configId=${ids.categorical}`, k);
      t.match(read.body.data[0], { value: 1, stringValue: 'friendly' }, 'the category number is read back');

      await call(s, 'PATCH', `/score-configs/${ids.unbounded}`, k, { isArchived: true });
      const refusals: [string, Record<string, unknown>, RegExp][] = [
        [
          'unknown config',
          { configId: 'nope', name: 'x', value: 1 },
          /"configId".*nope is not a score config of this project/,
        ],
        ['archived config', { configId: ids.unbounded, name: 'latency', value: 1 }, /archived score config/],
        [
          'data type mismatch',
          { configId: ids.numeric, name: 'accuracy', value: 1, dataType: 'BOOLEAN' },
          /"dataType".*must be NUMERIC, the data type of the score config/,
        ],
        [
          'string for a numeric config',
          { configId: ids.numeric, name: 'accuracy', value: 'high' },
          /must be a number for a NUMERIC score/,
        ],
        [
          'below the minimum',
          { configId: ids.numeric, name: 'accuracy', value: -0.01 },
          /must be at least 0, the score config's minValue/,
        ],
        [
          'above the maximum',
          { configId: ids.numeric, name: 'accuracy', value: 1.01 },
          /must be at most 1, the score config's maxValue/,
        ],
        [
          'not a category',
          { configId: ids.categorical, name: 'tone', value: 'grumpy' },
          /must be a category label of the score config: \\"rude\\", \\"friendly\\"/,
        ],
        [
          'a number for a categorical config',
          { configId: ids.categorical, name: 'tone', value: 1 },
          /must be a string for a CATEGORICAL score/,
        ],
        ['boolean out of range', { configId: ids.boolean, name: 'correct', value: 2 }, /1 \(true\) or 0 \(false\)/],
      ];
      for (const [label, body, message] of refusals) {
        const r = await call(s, 'POST', '/scores', k, { traceId: 'tr-1', id: `refused-${label}`, ...body });
        t.equal(r.status, 400, label);
        t.equal(r.body.message, 'Invalid request data');
        t.match(JSON.stringify(r.body.error), message, label);
        t.notOk(await getScore(db, 'default', `refused-${label}`), `${label}: not stored`);
      }
    });

    t.test("ingestion score-create: a refused config is that event's error in the 207", async (t) => {
      const event = (id: string, body: Record<string, unknown>) => ({
        id,
        type: 'score-create',
        timestamp: '2026-05-01T00:00:00Z',
        body: { id, traceId: 'tr-1', ...body },
      });
      const r = await call(s, 'POST', '/ingestion', k, {
        batch: [
          event('ok', { configId: ids.categorical, name: 'tone', value: 'rude' }),
          event('unknown', { configId: 'nope', name: 'x', value: 1 }),
          event('archived', { configId: ids.unbounded, name: 'latency', value: 1 }),
          event('mismatch', { configId: ids.text, name: 'note', value: 'x', dataType: 'CATEGORICAL' }),
          event('range', { configId: ids.numeric, name: 'accuracy', value: 3 }),
          event('category', { configId: ids.categorical, name: 'tone', value: 'grumpy' }),
        ],
      });
      t.equal(r.status, 207);
      t.same(r.body.successes, [{ id: 'ok', status: 201 }]);
      t.same(
        r.body.errors.map((e: any) => [e.id, e.status, e.error]),
        ['unknown', 'archived', 'mismatch', 'range', 'category'].map((id) => [id, 400, 'InvalidRequestError']),
      );
      t.match(r.body.errors[0].message, /body\.configId: nope is not a score config of this project/);
      t.match(r.body.errors[3].message, /body\.value: must be at most 1/);
      t.match(await getScore(db, 'default', 'ok'), { value: 0, stringValue: 'rude', configId: ids.categorical });
      t.notOk(await getScore(db, 'default', 'range'));
    });

    t.test('key kinds', async (t) => {
      const routes: PublicRoute[] = [
        ['GET', '/score-configs'],
        ['POST', '/score-configs', { name: 'k', dataType: 'TEXT' }],
        ['GET', `/score-configs/${ids.text}`],
        ['PATCH', `/score-configs/${ids.text}`, { description: 'd' }],
      ];
      await assertProjectRouteKeys(t, s, routes, { orgKey, ingestKey });
      t.equal((await call(s, 'GET', `/score-configs/${ids.text}`, k)).status, 200, 'the project key works');
      const other = await call(s, 'POST', '/scores', auth(ingestKey), {
        traceId: 'x',
        configId: ids.text,
        name: 'note',
        value: 'x',
      });
      t.equal(other.status, 400, 'a config of another project is unknown');
    });
  });
}
