// Trace, observation and session reads of the public API (docs/public-api.md "Traces, observations and sessions"):
// GET/DELETE /traces/{id}, DELETE /traces, GET /observations[/{id}], GET /sessions[/{id}] with paging, filters,
// 404s, project isolation and key kinds. Data arrives through POST /ingestion. Both backends.
import t, { type Test } from 'tap';
import { getScore } from '../../src/platform/store/repos/scores.ts';
import { getTrace } from '../../src/platform/store/repos/traces.ts';
import { getObservation } from '../../src/platform/store/repos/observations.ts';
import { basicAuth as auth, callAdmin, startPublicApiService } from '../helpers/public-api.ts';
import type { TestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';

const call = (s: TestService, method: string, path: string, authorization: string, body?: unknown) =>
  callAdmin(s, method, `/api/public${path}`, authorization, body);
const at = (iso: string) => `2026-05-01T${iso}Z`;
let seq = 0;
const ev = (type: string, body: Record<string, unknown>) => ({
  id: `e${++seq}`,
  type,
  timestamp: at('12:00:00'),
  body,
});

const BATCH = [
  ev('trace-create', {
    id: 'tr-a',
    name: 'chat',
    userId: 'u1',
    sessionId: 's1',
    timestamp: at('00:00:00'),
    input: { q: 1 },
    output: 'ok',
    tags: ['t1'],
  }),
  ev('trace-create', { id: 'tr-b', name: 'chat', userId: 'u2', sessionId: 's1', timestamp: at('01:00:00') }),
  ev('trace-create', {
    id: 'tr-c',
    name: 'batch',
    userId: 'u1',
    sessionId: 's2',
    timestamp: at('02:00:00'),
    environment: 'staging',
  }),
  ev('trace-create', { id: 'tr-d', name: 'lone', timestamp: at('03:00:00') }),
  ev('span-create', {
    id: 'sp-1',
    traceId: 'tr-a',
    name: 'step',
    startTime: at('00:00:01'),
    endTime: at('00:00:03'),
    metadata: { k: 'v' },
  }),
  ev('generation-create', {
    id: 'gen-1',
    traceId: 'tr-a',
    parentObservationId: 'sp-1',
    name: 'llm',
    startTime: at('00:00:02'),
    endTime: at('00:00:04'),
    completionStartTime: at('00:00:02.500'),
    model: 'gpt-x',
    usageDetails: { input: 10, output: 5 },
    level: 'WARNING',
  }),
  ev('event-create', { id: 'ev-1', traceId: 'tr-b', name: 'log', startTime: at('01:00:01') }),
  ev('span-create', { id: 'sp-2', traceId: 'tr-c', name: 'step', startTime: at('02:00:01'), environment: 'staging' }),
  ev('score-create', { id: 'sc-1', traceId: 'tr-a', name: 'accuracy', value: 0.5, timestamp: at('00:00:05') }),
];

for (const backend of STORE_BACKENDS) {
  t.test(`trace, observation and session reads on ${backend}`, async (t) => {
    const { s, db, key, ingestKey, orgKey } = await startPublicApiService(t, backend);
    const k = auth(key);
    const ingest = async (authorization: string, batch: unknown[]) => {
      const r = await call(s, 'POST', '/ingestion', authorization, { batch });
      t.equal(r.status, 207);
      t.same(r.body.errors, [], 'ingested without errors');
    };
    await ingest(k, BATCH);
    // The ingestion-only project holds a trace, observation and session that the default project's key must not see.
    await ingest(auth(ingestKey), [
      ev('trace-create', { id: 'tr-x', sessionId: 's-x', timestamp: at('00:00:00') }),
      ev('span-create', { id: 'ob-x', traceId: 'tr-x', startTime: at('00:00:01') }),
    ]);

    t.test('GET /traces/{id}: the trace with its observations and scores', async (t) => {
      const r = await call(s, 'GET', '/traces/tr-a', k);
      t.equal(r.status, 200);
      t.match(r.body, {
        id: 'tr-a',
        name: 'chat',
        userId: 'u1',
        sessionId: 's1',
        timestamp: at('00:00:00.000'),
        input: { q: 1 },
        output: 'ok',
        tags: ['t1'],
        environment: 'default',
        projectId: 'default',
        htmlPath: '/project/default/traces/tr-a',
      });
      t.same(
        r.body.observations.map((o: any) => o.id),
        ['sp-1', 'gen-1'],
        'observations by start time',
      );
      t.match(r.body.observations[1], {
        id: 'gen-1',
        traceId: 'tr-a',
        parentObservationId: 'sp-1',
        type: 'GENERATION',
        name: 'llm',
        model: 'gpt-x',
        level: 'WARNING',
        startTime: at('00:00:02.000'),
        endTime: at('00:00:04.000'),
        latency: 2,
        timeToFirstToken: 0.5,
        usage: { unit: 'TOKENS', input: 10, output: 5 },
        promptTokens: 10,
        completionTokens: 5,
        usageDetails: { input: 10, output: 5 },
      });
      t.match(r.body.observations[0], { id: 'sp-1', type: 'SPAN', metadata: { k: 'v' }, parentObservationId: null });
      t.same(
        r.body.scores.map((x: any) => x.id),
        ['sc-1'],
      );
      t.match(r.body.scores[0], { name: 'accuracy', value: 0.5, dataType: 'NUMERIC', traceId: 'tr-a' });
      const empty = await call(s, 'GET', '/traces/tr-d', k);
      t.same([empty.body.observations, empty.body.scores], [[], []]);
    });

    t.test('GET /traces: each item lists its observation and score ids', async (t) => {
      const r = await call(s, 'GET', '/traces', k);
      t.equal(r.status, 200);
      const byId = new Map(r.body.data.map((x: any) => [x.id, x]));
      t.match(byId.get('tr-a'), { observations: ['sp-1', 'gen-1'], scores: ['sc-1'] });
      t.match(byId.get('tr-d'), { observations: [], scores: [] });
    });

    t.test('GET /observations: paging and every filter', async (t) => {
      const all = await call(s, 'GET', '/observations', k);
      t.equal(all.status, 200);
      t.same(
        all.body.data.map((o: any) => o.id),
        ['sp-2', 'ev-1', 'gen-1', 'sp-1'],
        'newest start time first, own project only',
      );
      t.same(all.body.meta, { page: 1, limit: 50, totalItems: 4, totalPages: 1 });
      const ids = async (query: string) => {
        const r = await call(s, 'GET', `/observations?${query}`, k);
        t.equal(r.status, 200, query);
        return r.body.data.map((o: any) => o.id);
      };
      t.same(await ids('limit=3&page=1'), ['sp-2', 'ev-1', 'gen-1']);
      t.same(await ids('limit=3&page=2'), ['sp-1']);
      t.same(await ids('limit=3&page=3'), [], 'a page past the end is empty');
      t.same((await call(s, 'GET', '/observations?limit=3&page=2', k)).body.meta, {
        page: 2,
        limit: 3,
        totalItems: 4,
        totalPages: 2,
      });
      t.same(await ids('traceId=tr-a'), ['gen-1', 'sp-1']);
      t.same(await ids('name=step'), ['sp-2', 'sp-1']);
      t.same(await ids('type=GENERATION'), ['gen-1']);
      t.same(await ids('type=EVENT'), ['ev-1']);
      t.same(await ids('userId=u1'), ['sp-2', 'gen-1', 'sp-1'], 'the user of the trace');
      t.same(await ids('parentObservationId=sp-1'), ['gen-1']);
      t.same(await ids('level=WARNING'), ['gen-1']);
      t.same(await ids('environment=staging'), ['sp-2']);
      t.same(
        await ids(`fromStartTime=${at('00:00:02')}&toStartTime=${at('02:00:01')}`),
        ['ev-1', 'gen-1'],
        'from inclusive, to exclusive',
      );
      t.same(await ids('traceId=tr-x'), [], "another project's trace");
      t.same(await ids('traceId=nope'), []);
    });

    const filtered = async (path: string, filter: unknown[], extra = '') => {
      const r = await call(s, 'GET', `${path}?filter=${encodeURIComponent(JSON.stringify(filter))}${extra}`, k);
      t.equal(r.status, 200, JSON.stringify(filter));
      return r.body.data.map((x: any) => x.id);
    };

    t.test('GET /traces with the structured filter', async (t) => {
      t.same(await filtered('/traces', [{ type: 'string', column: 'userId', operator: '=', value: 'u1' }]), [
        'tr-c',
        'tr-a',
      ]);
      t.same(await filtered('/traces', [{ type: 'string', column: 'name', operator: 'starts with', value: 'ch' }]), [
        'tr-b',
        'tr-a',
      ]);
      t.same(
        await filtered('/traces', [{ type: 'string', column: 'name', operator: 'contains', value: '%' }]),
        [],
        'LIKE wildcards are literal',
      );
      t.same(
        await filtered('/traces', [{ type: 'string', column: 'name', operator: 'does not contain', value: 'a' }]),
        ['tr-d'],
      );
      t.same(
        await filtered('/traces', [
          { type: 'datetime', column: 'timestamp', operator: '>=', value: at('01:00:00') },
          { type: 'datetime', column: 'timestamp', operator: '<', value: at('03:00:00') },
        ]),
        ['tr-c', 'tr-b'],
      );
      t.same(
        await filtered('/traces', [
          { type: 'stringOptions', column: 'environment', operator: 'none of', value: ['default'] },
        ]),
        ['tr-c'],
      );
      t.same(
        await filtered('/traces', [{ type: 'arrayOptions', column: 'tags', operator: 'any of', value: ['t1', 'zz'] }]),
        ['tr-a'],
      );
      t.same(
        await filtered('/traces', [{ type: 'arrayOptions', column: 'tags', operator: 'all of', value: ['t1', 'zz'] }]),
        [],
      );
      t.same(await filtered('/traces', [{ type: 'null', column: 'sessionId', operator: 'is null' }]), ['tr-d']);
      t.same(
        await filtered('/traces', [{ type: 'number', column: 'totalTokens', operator: '>', value: 0 }]),
        ['tr-a'],
        'tokens summed over generations',
      );
      t.same(await filtered('/traces', [{ type: 'number', column: 'warningCount', operator: '=', value: 1 }]), [
        'tr-a',
      ]);
      t.same(
        await filtered('/traces', [{ type: 'string', column: 'userId', operator: '=', value: 'u1' }], '&userId=u2'),
        ['tr-c', 'tr-a'],
        'the filter replaces userId',
      );
      t.same(
        await filtered('/traces', [{ type: 'string', column: 'userId', operator: '=', value: 'u1' }], '&name=batch'),
        ['tr-c'],
        'other simple parameters still apply',
      );
      for (const bad of [
        'not json',
        '{}',
        JSON.stringify([{ type: 'string', column: 'bogus', operator: '=', value: 'x' }]),
        JSON.stringify([{ type: 'number', column: 'userId', operator: '=', value: 1 }]),
        JSON.stringify([{ type: 'string', column: 'userId', operator: '>', value: 'x' }]),
        JSON.stringify([{ type: 'string', column: 'userId', operator: '=', value: 3 }]),
        JSON.stringify([{ type: 'stringObject', column: 'metadata', operator: '=', value: 'x' }]),
      ]) {
        const r = await call(s, 'GET', `/traces?filter=${encodeURIComponent(bad)}`, k);
        t.equal(r.status, 400, bad);
        t.equal(r.body.message, 'Invalid request data');
        t.same(r.body.error[0].path, ['filter'], bad);
      }
    });

    t.test('GET /observations with the structured filter', async (t) => {
      t.same(
        await filtered('/observations', [
          { type: 'stringObject', column: 'metadata', key: 'k', operator: '=', value: 'v' },
        ]),
        ['sp-1'],
      );
      t.same(
        await filtered('/observations', [
          { type: 'stringObject', column: 'metadata', key: "it's", operator: '=', value: 'v' },
        ]),
        [],
        'keys are bound, not spliced',
      );
      t.same(
        await filtered('/observations', [
          { type: 'stringObject', column: 'metadata', key: "\\' OR 1=1 --", operator: '=', value: 'v' },
        ]),
        [],
      );
      for (const bad of [
        [{ type: 'string', column: 'constructor', operator: '=', value: 'x' }],
        [{ type: 'datetime', column: 'startTime', operator: '>', value: '1' }],
        [{ type: 'stringObject', column: 'metadata', key: 'k\u0000', operator: '=', value: 'v' }],
      ]) {
        const r = await call(s, 'GET', `/observations?filter=${encodeURIComponent(JSON.stringify(bad))}`, k);
        t.equal(r.status, 400, JSON.stringify(bad));
      }
      t.same(await filtered('/observations', [{ type: 'number', column: 'inputTokens', operator: '=', value: 10 }]), [
        'gen-1',
      ]);
      t.same(await filtered('/observations', [{ type: 'number', column: 'latency', operator: '>=', value: 2 }]), [
        'gen-1',
        'sp-1',
      ]);
      t.same(
        await filtered('/observations', [{ type: 'string', column: 'traceName', operator: '=', value: 'batch' }]),
        ['sp-2'],
      );
      t.same(
        await filtered('/observations', [
          { type: 'stringOptions', column: 'type', operator: 'any of', value: ['EVENT', 'GENERATION'] },
        ]),
        ['ev-1', 'gen-1'],
      );
      t.same(
        await filtered(
          '/observations',
          [{ type: 'string', column: 'userId', operator: '=', value: 'u2' }],
          '&userId=u1',
        ),
        ['ev-1'],
        'the filter replaces userId',
      );
    });

    t.test('GET /v2/observations: cursor paging and field groups', async (t) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 5; pages++) {
        const r = await call(
          s,
          'GET',
          `/v2/observations?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          k,
        );
        t.equal(r.status, 200);
        seen.push(...r.body.data.map((o: any) => o.id));
        cursor = r.body.meta.cursor;
        if (!cursor) break;
      }
      t.same(seen, ['sp-2', 'ev-1', 'gen-1', 'sp-1'], 'every observation once, newest first, across pages');
      const first = await call(s, 'GET', '/v2/observations?limit=4', k);
      t.same(first.body.meta, {}, 'no cursor on the last page');
      t.same(
        Object.keys(first.body.data[0]).sort(),
        [
          'bookmarked',
          'endTime',
          'environment',
          'id',
          'inputPrice',
          'isRootObservation',
          'level',
          'modelId',
          'name',
          'outputPrice',
          'parentObservationId',
          'projectId',
          'public',
          'sessionId',
          'startTime',
          'statusMessage',
          'totalPrice',
          'traceId',
          'type',
          'userId',
          'version',
        ],
        'core and basic by default',
      );
      const gen = await call(
        s,
        'GET',
        '/v2/observations?traceId=tr-a&type=GENERATION&fields=core,io,usage,metrics,trace_context,metadata,unknown',
        k,
      );
      t.match(gen.body.data[0], {
        id: 'gen-1',
        usageDetails: { input: 10, output: 5 },
        latency: 2,
        timeToFirstToken: 0.5,
        traceName: 'chat',
        tags: ['t1'],
        input: null,
      });
      t.notOk('name' in gen.body.data[0], 'basic not asked for');
      const sp = await call(s, 'GET', '/v2/observations?traceId=tr-a&type=SPAN&fields=basic', k);
      t.match(sp.body.data[0], { id: 'sp-1', userId: 'u1', sessionId: 's1', isRootObservation: true });
      t.same(
        (await call(s, 'GET', '/v2/observations?isRootObservation=false', k)).body.data.map((o: any) => o.id),
        ['gen-1'],
      );
      t.same(
        (await call(s, 'GET', '/v2/observations?sessionId=s2', k)).body.data.map((o: any) => o.id),
        ['sp-2'],
      );
      for (const query of ['cursor=bm9wZQ', 'parseIoAsJson=true', 'limit=1001', 'limit=0']) {
        const r = await call(s, 'GET', `/v2/observations?${query}`, k);
        t.equal(r.status, 400, query);
      }
      t.equal((await call(s, 'GET', '/v2/observations?limit=1000', k)).status, 200, 'limit 1000 is the maximum');
      t.equal(
        (await call(s, 'GET', '/v2/observations?cursor=bm9wZQ', k)).body.error[0].message,
        'Invalid cursor format',
      );
      const oddCursor = Buffer.from(JSON.stringify({ lastStartTimeTo: '1', lastTraceId: 'x', lastId: 'y' })).toString(
        'base64',
      );
      t.equal(
        (await call(s, 'GET', `/v2/observations?cursor=${oddCursor}`, k)).status,
        400,
        'a cursor time Postgres would not read',
      );

      // Microsecond start times (the Python SDK sends them) within one millisecond: the cursor still walks all.
      await ingest(
        k,
        ['.123456', '.123300', '.123100', '.122999'].map((frac, i) =>
          ev('span-create', { id: `us-${i}`, traceId: 'tr-us', name: 'us', startTime: `2026-05-02T12:00:00${frac}Z` }),
        ),
      );
      const walked: string[] = [];
      let next: string | undefined;
      for (let pages = 0; pages < 6; pages++) {
        const r = await call(
          s,
          'GET',
          `/v2/observations?traceId=tr-us&limit=1${next ? `&cursor=${encodeURIComponent(next)}` : ''}`,
          k,
        );
        walked.push(...r.body.data.map((o: any) => o.id));
        next = r.body.meta.cursor;
        if (!next) break;
      }
      t.same(walked.sort(), ['us-0', 'us-1', 'us-2', 'us-3'], 'every observation once');
      await call(s, 'DELETE', '/traces', k, { traceIds: ['tr-us'] });
    });

    const refuses = async (t: Test, path: string, queries: string[]) => {
      for (const query of queries) {
        const r = await call(s, 'GET', `${path}?${query}`, k);
        t.equal(r.status, 400, `${path}?${query}`);
        t.equal(r.body.message, 'Invalid request data', query);
      }
    };

    t.test('GET /observations refuses bad queries and ignores unknown parameters', async (t) => {
      await refuses(t, '/observations', [
        'limit=0',
        'limit=101',
        'page=0',
        'page=x',
        'type=BOGUS',
        'level=LOUD',
        'fromStartTime=yesterday',
        'toStartTime=2026-05-01',
        'filter={}',
      ]);
      t.equal((await call(s, 'GET', '/observations?unknown=1', k)).body.meta.totalItems, 4, 'as Langfuse does');
    });

    t.test('GET /observations/{id}', async (t) => {
      const r = await call(s, 'GET', '/observations/ev-1', k);
      t.equal(r.status, 200);
      t.match(r.body, {
        id: 'ev-1',
        traceId: 'tr-b',
        type: 'EVENT',
        name: 'log',
        projectId: 'default',
        endTime: null,
        latency: null,
        timeToFirstToken: null,
      });
      for (const id of ['nope', 'ob-x']) {
        const missing = await call(s, 'GET', `/observations/${id}`, k);
        t.same(
          missing,
          {
            status: 404,
            body: { message: `Observation ${id} not found within authorized project`, error: 'NotFoundError' },
          },
          id,
        );
      }
    });

    t.test('GET /sessions: distinct session ids, created at the first trace', async (t) => {
      const all = await call(s, 'GET', '/sessions', k);
      t.equal(all.status, 200);
      t.same(
        all.body.data,
        [
          { projectId: 'default', id: 's2', createdAt: at('02:00:00.000'), environment: 'staging' },
          { projectId: 'default', id: 's1', createdAt: at('00:00:00.000'), environment: 'default' },
        ],
        "newest first; traces without a session and other projects' sessions are not listed",
      );
      t.same(all.body.meta, { page: 1, limit: 50, totalItems: 2, totalPages: 1 });
      const ids = async (query: string) =>
        (await call(s, 'GET', `/sessions?${query}`, k)).body.data.map((x: any) => x.id);
      t.same(await ids('limit=1&page=2'), ['s1']);
      t.same(await ids('limit=1&page=3'), []);
      t.same(
        await ids(`fromTimestamp=${at('00:00:00')}&toTimestamp=${at('02:00:00')}`),
        ['s1'],
        'from inclusive, to exclusive',
      );
      t.same(await ids('environment=staging'), ['s2']);
      t.same(await ids('environment=staging&environment=default'), ['s2', 's1']);
      await refuses(t, '/sessions', ['limit=0', 'limit=101', 'page=0', 'fromTimestamp=x']);
      t.same(await ids('userId=u1'), ['s2', 's1'], 'a parameter sessions do not take is ignored, as Langfuse does');
    });

    t.test('GET /sessions/{id}: the session with its traces', async (t) => {
      const r = await call(s, 'GET', '/sessions/s1', k);
      t.equal(r.status, 200);
      t.match(r.body, { id: 's1', projectId: 'default', createdAt: at('00:00:00.000'), environment: 'default' });
      t.same(
        r.body.traces.map((x: any) => x.id),
        ['tr-a', 'tr-b'],
        'oldest first',
      );
      t.match(r.body.traces[0], { id: 'tr-a', sessionId: 's1', observations: ['sp-1', 'gen-1'] });
      for (const id of ['nope', 's-x']) {
        const missing = await call(s, 'GET', `/sessions/${id}`, k);
        t.same(
          missing,
          {
            status: 404,
            body: { message: `Session ${id} not found within authorized project`, error: 'NotFoundError' },
          },
          id,
        );
      }
    });

    t.test('key kinds: ingestion-only keys are 403, organization keys 401', async (t) => {
      const routes: [string, string, unknown?][] = [
        ['GET', '/traces/tr-a'],
        ['DELETE', '/traces/tr-a'],
        ['DELETE', '/traces', { traceIds: ['tr-a'] }],
        ['GET', '/observations'],
        ['GET', '/observations/sp-1'],
        ['GET', '/v2/observations'],
        ['GET', '/sessions'],
        ['GET', '/sessions/s1'],
      ];
      for (const [method, path, body] of routes) {
        const r = await call(s, method, path, auth(ingestKey), body);
        t.equal(r.status, 403, `${method} ${path} ingestion-only`);
        t.match(r.body.message, /ingestion-only/);
        const o = await call(s, method, path, auth(orgKey), body);
        t.equal(o.status, 401, `${method} ${path} organization key`);
        t.match(o.body.message, /organization key/);
        t.equal((await call(s, method, path, '')).status, 401, `${method} ${path} no key`);
      }
      t.ok(await getTrace(db, 'default', 'tr-a'), 'nothing was deleted');
    });

    t.test('DELETE /traces/{id} deletes the trace with its observations and scores', async (t) => {
      t.ok(await getScore(db, 'default', 'sc-1'), 'the score is stored before');
      const r = await call(s, 'DELETE', '/traces/tr-a', k);
      t.same(r, { status: 200, body: { message: 'Trace deleted successfully' } });
      t.equal(await getTrace(db, 'default', 'tr-a'), undefined);
      t.equal(await getScore(db, 'default', 'sc-1'), undefined, 'its score is deleted too');
      t.equal(await getObservation(db, 'default', 'sp-1'), undefined);
      t.equal(await getObservation(db, 'default', 'gen-1'), undefined);
      t.equal((await call(s, 'GET', '/traces/tr-a', k)).status, 404);
      t.same(await call(s, 'DELETE', '/traces/tr-a', k), {
        status: 404,
        body: { message: 'Trace tr-a not found within authorized project', error: 'NotFoundError' },
      });
      t.equal((await call(s, 'DELETE', '/traces/tr-x', k)).status, 404, "another project's trace");
      t.ok(await getTrace(db, 'ingest', 'tr-x'), 'still stored');
      t.same(await call(s, 'GET', '/traces/nope', k), {
        status: 404,
        body: { message: 'Trace nope not found within authorized project', error: 'NotFoundError' },
      });
    });

    t.test('DELETE /traces deletes many; ids not in the project are skipped', async (t) => {
      for (const body of [
        undefined,
        {},
        { traceIds: [] },
        { traceIds: 'tr-b' },
        { traceIds: [''] },
        { traceIds: Array.from({ length: 1001 }, (_, i) => `x${i}`) },
        { traceIds: [''], extra: 1 },
      ]) {
        const r = await call(s, 'DELETE', '/traces', k, body);
        t.equal(r.status, 400, JSON.stringify(body)?.slice(0, 60));
      }
      t.ok(await getTrace(db, 'default', 'tr-b'), 'refused requests deleted nothing');
      const r = await call(s, 'DELETE', '/traces', k, { traceIds: ['tr-b', 'tr-c', 'tr-x', 'nope'] });
      t.same(r, { status: 200, body: { message: 'Traces deleted successfully' } });
      for (const id of ['tr-b', 'tr-c']) t.equal(await getTrace(db, 'default', id), undefined, id);
      for (const id of ['ev-1', 'sp-2']) t.equal(await getObservation(db, 'default', id), undefined, id);
      t.ok(await getTrace(db, 'ingest', 'tr-x'), "another project's trace is kept");
      t.ok(await getObservation(db, 'ingest', 'ob-x'));
      t.same((await call(s, 'GET', '/observations', k)).body.data, []);
      t.same((await call(s, 'GET', '/sessions', k)).body.data, [], 'no trace left with a session');
      t.equal((await call(s, 'GET', '/traces/tr-d', k)).status, 200, 'traces not named are kept');
    });
  });
}
