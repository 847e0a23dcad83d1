// Scores of the public API (docs/public-api.md "Ingestion and scores"): POST /scores with its rules, GET /scores and
// /v2/scores with paging and filters, GET and DELETE /scores/{id}, upserts on one id, key kinds. Both backends.
import t from 'tap';
import { createScoreConfig } from '../../src/platform/store/repos/score-configs.ts';
import { getScore } from '../../src/platform/store/repos/scores.ts';
import { basicAuth as auth, callAdmin, startPublicApiService } from '../helpers/public-api.ts';
import type { TestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';

const call = (s: TestService, method: string, path: string, authorization: string, body?: unknown) =>
  callAdmin(s, method, `/api/public${path}`, authorization, body);

for (const backend of STORE_BACKENDS) {
  t.test(`scores on ${backend}`, async (t) => {
    const { s, db, key, ingestKey, orgKey } = await startPublicApiService(t, backend);
    const k = auth(key);

    await call(s, 'POST', '/ingestion', k, {
      batch: [
        {
          id: 'e1',
          type: 'trace-create',
          timestamp: '2026-05-01T00:00:00Z',
          body: { id: 'tr-1', userId: 'u1', sessionId: 's1', tags: ['t1'] },
        },
      ],
    });
    // The ANNOTATION score below names a config, which must exist (public-score-configs.test.ts checks the rules).
    await createScoreConfig(
      db,
      'default',
      {
        name: 'note',
        dataType: 'TEXT',
        isArchived: false,
        minValue: null,
        maxValue: null,
        categories: null,
        description: null,
      },
      'cfg',
    );

    t.test('POST /scores creates each data type and answers {id}', async (t) => {
      const cases = [
        [
          { id: 'n1', traceId: 'tr-1', name: 'accuracy', value: 0.75, timestamp: '2026-05-01T00:00:01Z' },
          { dataType: 'NUMERIC', value: 0.75, stringValue: null },
        ],
        [
          {
            id: 'b1',
            traceId: 'tr-1',
            name: 'correct',
            value: 1,
            dataType: 'BOOLEAN',
            timestamp: '2026-05-01T00:00:02Z',
          },
          { dataType: 'BOOLEAN', value: 1, stringValue: 'True' },
        ],
        [
          { id: 'c1', sessionId: 's1', name: 'tone', value: 'friendly', timestamp: '2026-05-01T00:00:03Z' },
          { dataType: 'CATEGORICAL', value: null, stringValue: 'friendly' },
        ],
        [
          {
            id: 't1',
            traceId: 'tr-1',
            observationId: 'o-1',
            name: 'note',
            value: 'long text',
            dataType: 'TEXT',
            source: 'ANNOTATION',
            configId: 'cfg',
            timestamp: '2026-05-01T00:00:04Z',
          },
          { dataType: 'TEXT', source: 'ANNOTATION', configId: 'cfg' },
        ],
      ] as const;
      for (const [body, stored] of cases) {
        const r = await call(s, 'POST', '/scores', k, body);
        t.same(r, { status: 200, body: { id: body.id } }, body.id);
        t.match(await getScore(db, 'default', body.id), stored);
      }
      const generated = await call(s, 'POST', '/scores', k, { id: '', traceId: 'tr-1', name: 'x', value: 2 });
      t.match(generated.body.id, /^[0-9a-f-]{36}$/, 'an empty id gets a UUID');
      await call(s, 'DELETE', `/scores/${generated.body.id}`, k);
    });

    t.test('POST /scores refuses what the rules forbid, naming the field', async (t) => {
      const refusals: [unknown, RegExp][] = [
        [{ traceId: 'tr-1', value: 1 }, /name/],
        [{ traceId: 'tr-1', name: 'x', value: true }, /value/],
        [{ traceId: 'tr-1', name: 'x', value: 'yes', dataType: 'NUMERIC' }, /must be a number for a NUMERIC score/],
        [{ traceId: 'tr-1', name: 'x', value: 0.5, dataType: 'BOOLEAN' }, /1 \(true\) or 0 \(false\)/],
        [{ traceId: 'tr-1', name: 'x', value: 'a'.repeat(501), dataType: 'TEXT' }, /1 to 500 characters/],
        [{ name: 'x', value: 1 }, /exactly one target/],
        [{ traceId: 'tr-1', sessionId: 's1', name: 'x', value: 1 }, /exactly one target/],
        [{ sessionId: 's1', observationId: 'o', name: 'x', value: 1 }, /needs traceId/],
        [{ traceId: 'tr-1', name: 'x', value: 1, source: 'EVAL' }, /EVAL scores/],
        [{ traceId: 'tr-1', name: 'x', value: 1, source: 'ANNOTATION' }, /required for an ANNOTATION score/],
        [42, /must be a JSON object/],
        [[], /must hold at least one score/],
      ];
      for (const [body, message] of refusals) {
        const r = await call(s, 'POST', '/scores', k, body);
        t.equal(r.status, 400, JSON.stringify(body));
        t.equal(r.body.message, 'Invalid request data');
        t.match(JSON.stringify(r.body.error), message);
      }
    });

    t.test(
      'POST /scores with an array (the Langfuse Python SDK v5): 202 when all are stored, else 207 naming each refusal',
      async (t) => {
        const all = await call(s, 'POST', '/scores', k, [
          { id: 'batch-1', traceId: 'tr-1', name: 'accuracy', value: 0.5 },
          { id: 'batch-2', traceId: 'tr-1', observationId: 'o-1', name: 'ok', value: 1, dataType: 'BOOLEAN' },
          { id: 'batch-1', traceId: 'tr-1', name: 'accuracy', value: 0.6, comment: 'second' },
        ]);
        t.same(all, { status: 202, body: { message: 'Accepted' } });
        t.match(
          await getScore(db, 'default', 'batch-1'),
          { value: 0.6, comment: 'second' },
          'a repeated id: the later score wins',
        );
        t.match(await getScore(db, 'default', 'batch-2'), {
          dataType: 'BOOLEAN',
          stringValue: 'True',
          observationId: 'o-1',
        });

        const mixed = await call(s, 'POST', '/scores', k, [
          { id: 'batch-3', sessionId: 's1', name: 'tone', value: 'calm' },
          { id: 'batch-4', traceId: 'tr-1', name: 'x', value: 'yes', dataType: 'NUMERIC' },
          1,
        ]);
        t.equal(mixed.status, 207);
        t.same(mixed.body, {
          accepted: 1,
          rejected: 2,
          errors: [
            { message: 'scores[1]: value: must be a number for a NUMERIC score' },
            { message: 'scores[2]: score: must be a JSON object' },
          ],
        });
        t.match(await getScore(db, 'default', 'batch-3'), { dataType: 'CATEGORICAL', stringValue: 'calm' });
        t.equal(await getScore(db, 'default', 'batch-4'), undefined);
        for (const id of ['batch-1', 'batch-2', 'batch-3']) await call(s, 'DELETE', `/scores/${id}`, k);
      },
    );

    t.test('a repeated id is an upsert: later values win, absent ones keep, metadata merges, trace kept', async (t) => {
      await call(s, 'POST', '/scores', k, {
        id: 'u1',
        traceId: 'tr-1',
        name: 'v',
        value: 1,
        comment: 'first',
        metadata: { a: 1 },
        timestamp: '2026-05-01T00:00:05Z',
      });
      await call(s, 'POST', '/scores', k, {
        id: 'u1',
        traceId: 'tr-other',
        name: 'v2',
        value: 2,
        metadata: { b: 2 },
        timestamp: '2026-06-01T00:00:00Z',
      });
      t.match(await getScore(db, 'default', 'u1'), {
        name: 'v2',
        value: 2,
        comment: 'first',
        metadata: { a: 1, b: 2 },
        traceId: 'tr-1',
        timestamp: '2026-05-01T00:00:05.000Z',
      });
      await call(s, 'DELETE', '/scores/u1', k);
    });

    t.test('GET /scores and /v2/scores: paging, filters, the trace fields', async (t) => {
      const all = await call(s, 'GET', '/v2/scores', k);
      t.equal(all.status, 200);
      t.same(
        all.body.data.map((x: any) => x.id),
        ['t1', 'c1', 'b1', 'n1'],
        'newest first',
      );
      t.same(all.body.meta, { page: 1, limit: 50, totalItems: 4, totalPages: 1 });
      t.match(all.body.data[2], {
        id: 'b1',
        name: 'correct',
        dataType: 'BOOLEAN',
        value: 1,
        stringValue: 'True',
        source: 'API',
        traceId: 'tr-1',
        timestamp: '2026-05-01T00:00:02.000Z',
        environment: 'default',
        trace: { userId: 'u1', sessionId: 's1', tags: ['t1'], environment: 'default' },
      });
      t.equal(all.body.data[1].trace, null, 'a session score has no trace');
      const v1 = await call(s, 'GET', '/scores', k);
      t.same(
        v1.body.data.map((x: any) => x.id),
        ['t1', 'b1', 'n1'],
        "v1: trace scores only, as Langfuse's v1",
      );
      t.same(v1.body.meta, { page: 1, limit: 50, totalItems: 3, totalPages: 1 });
      t.same(v1.body.data[1], all.body.data[2], 'one shape for both');
      const ids = async (query: string) =>
        (await call(s, 'GET', `/v2/scores?${query}`, k)).body.data.map((x: any) => x.id);
      t.same(await ids('limit=2&page=2'), ['b1', 'n1']);
      t.same(await ids('name=tone'), ['c1']);
      t.same(await ids('userId=u1'), ['t1', 'b1', 'n1']);
      t.same(await ids('dataType=NUMERIC'), ['n1']);
      t.same(await ids('source=ANNOTATION'), ['t1']);
      t.same(await ids('traceId=tr-1&observationId=o-1'), ['t1']);
      t.same(await ids('sessionId=s1'), ['c1']);
      t.same(await ids('scoreIds=n1,%20c1'), ['c1', 'n1']);
      t.same(await ids('fromTimestamp=2026-05-01T00:00:02Z&toTimestamp=2026-05-01T00:00:04Z'), ['c1', 'b1']);
      t.same(await ids('operator=%3E%3D&value=0.8'), ['b1']);
      t.same(await ids('configId=cfg'), ['t1']);
      const bad = await call(s, 'GET', '/scores?limit=101&operator=%3E', k);
      t.equal(bad.status, 400);
      t.equal(bad.body.message, 'Invalid request data');
    });

    t.test('GET and DELETE /scores/{id}', async (t) => {
      for (const path of ['/scores/n1', '/v2/scores/n1']) {
        const r = await call(s, 'GET', path, k);
        t.equal(r.status, 200);
        t.match(r.body, { id: 'n1', name: 'accuracy', value: 0.75, dataType: 'NUMERIC', projectId: 'default' });
        t.notOk('stringValue' in r.body, 'a NUMERIC score has no stringValue');
      }
      t.same(await call(s, 'GET', '/scores/missing', k), {
        status: 404,
        body: { message: 'Score not found', error: 'NotFoundError' },
      });
      t.same(
        await call(s, 'GET', '/scores/c1', k),
        { status: 404, body: { message: 'Score not found', error: 'NotFoundError' } },
        'v1: a session score is not found',
      );
      t.match(await call(s, 'GET', '/v2/scores/c1', k), { status: 200, body: { id: 'c1', sessionId: 's1' } });
      t.same(await call(s, 'DELETE', '/scores/n1', k), {
        status: 202,
        body: { message: 'Score deletion queued successfully' },
      });
      t.notOk(await getScore(db, 'default', 'n1'));
      t.equal((await call(s, 'DELETE', '/scores/n1', k)).status, 404);
    });

    t.test('key kinds', async (t) => {
      const ik = auth(ingestKey);
      t.equal(
        (await call(s, 'POST', '/scores', ik, { traceId: 'x', name: 'n', value: 1 })).status,
        200,
        'an ingestion-only project may write scores',
      );
      for (const [method, path] of [
        ['GET', '/scores'],
        ['GET', '/v2/scores'],
        ['GET', '/scores/b1'],
        ['DELETE', '/scores/b1'],
      ]) {
        const r = await call(s, method, path, ik);
        t.equal(r.status, 403, `${method} ${path} ingestion-only`);
        t.match(r.body.message, /ingestion-only/);
        const o = await call(s, method, path, auth(orgKey));
        t.equal(o.status, 401, `${method} ${path} org key`);
        t.match(o.body.message, /Are you using an organization key\?/);
      }
      t.equal((await call(s, 'POST', '/scores', auth(orgKey), { traceId: 'x', name: 'n', value: 1 })).status, 401);
      t.equal(
        (await call(s, 'GET', '/scores/b1', k)).status,
        200,
        "the ingestion-only project's score is not visible from another project",
      );
      t.equal(
        (await call(s, 'GET', '/scores', k)).body.data.every((x: any) => x.projectId === 'default'),
        true,
      );
    });
  });
}
