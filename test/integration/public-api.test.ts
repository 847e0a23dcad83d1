// The public API under /api/public (docs/public-api.md): Basic auth and every way it fails, key
// kinds per route class, ingestion-only projects, the error envelope, GET /projects and GET /traces (Langfuse shapes,
// paging bounds, filters, order). Runs against both store backends.
import t, { type Test } from 'tap';
import type { Clock } from '../../src/platform/clock.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { createApiKey, sixMonthsAfter, type CreatedApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { type TraceRow } from '../../src/platform/store/repos/traces.ts';
import { insertObservations, insertTraces } from '../../src/platform/store/repos/trace-batch.ts';
import { baseConfig, startTestService, type TestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';

const basic = (user: string, password?: string) =>
  `Basic ${Buffer.from(password === undefined ? user : `${user}:${password}`).toString('base64')}`;
const auth = (k: Pick<CreatedApiKey, 'publicKey' | 'secretKey'>) => basic(k.publicKey, k.secretKey);

const MESSAGES = {
  noHeader: 'No authorization header',
  badHeader: 'Invalid authorization header',
  invalidCredentials: "Invalid credentials. Confirm that you've configured the correct host.",
  expired: 'API key has expired.',
  organizationKey: 'Invalid API key. Are you using an organization key?',
};

/** A clock the test can stop at a chosen instant; otherwise real time. */
function settableClock(): Clock & { at: number | undefined } {
  const clock = { at: undefined as number | undefined, now: () => clock.at ?? Date.now(), sleep: systemClock.sleep };
  return clock;
}

async function get(
  s: TestService,
  path: string,
  authorization?: string,
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${s.adminUrl}/api/public${path}`, {
    headers: authorization === undefined ? {} : { authorization },
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text), headers: res.headers };
}

async function refused(
  t: Test,
  r: { status: number; body: any },
  status: number,
  message: string | RegExp,
  error: string,
) {
  t.equal(r.status, status, `status ${status}`);
  if (typeof message === 'string') t.equal(r.body?.message, message);
  else t.match(r.body?.message, message);
  t.equal(r.body?.error, error);
}

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

const TRACES: TraceRow[] = [
  {
    projectId: 'default',
    id: 'tr-1',
    name: 'charlie',
    status: 'completed',
    startTime: at(0),
    endTime: at(1500),
    source: 'api',
    input: { q: 'hi' },
    output: 'ok',
    metadata: { a: 1 },
    tags: { env: 'prod', beta: '' },
    userId: 'u1',
    sessionId: 's1',
    environment: 'default',
    release: 'r1',
    version: 'v1',
  },
  {
    projectId: 'default',
    id: 'tr-2',
    name: 'alpha',
    status: 'in_progress',
    startTime: at(1000),
    source: 'gateway',
    tags: { env: 'dev' },
    userId: 'u2',
    environment: 'staging',
  },
  {
    projectId: 'default',
    id: 'tr-3',
    name: 'bravo',
    status: 'completed',
    startTime: at(2000),
    endTime: at(2250),
    source: 'api',
    userId: 'u1',
    sessionId: 's2',
  },
  {
    projectId: 'other',
    id: 'tr-x',
    name: 'alpha',
    status: 'completed',
    startTime: at(500),
    source: 'api',
    userId: 'u1',
  },
];

for (const backend of STORE_BACKENDS) {
  t.test(`public API on ${backend}`, async (t) => {
    const clock = settableClock();
    const s = await startTestService(
      t,
      baseConfig({
        projects: [
          { id: 'default', name: 'Default' },
          { id: 'other', name: 'Other' },
          { id: 'ingest', ingestion_only: true },
        ],
      }),
      { backend, clock },
    );
    const db = s.service.db;
    const now = Date.now();
    const projectKey = await createApiKey(db, {
      kind: 'project',
      organizationId: 'default',
      projectId: 'default',
      now,
    });
    const ingestKey = await createApiKey(db, { kind: 'project', organizationId: 'default', projectId: 'ingest', now });
    const orgKey = await createApiKey(db, { kind: 'organization', organizationId: 'default', now });
    const sevenMonthsAgo = new Date(now);
    sevenMonthsAgo.setUTCMonth(sevenMonthsAgo.getUTCMonth() - 7);
    const expiredKey = await createApiKey(db, {
      kind: 'project',
      organizationId: 'default',
      projectId: 'default',
      now: sevenMonthsAgo.getTime(),
    });

    t.test('authentication failures are 401 with Langfuse messages', async (t) => {
      for (const path of ['/projects', '/traces']) {
        await refused(t, await get(s, path), 401, MESSAGES.noHeader, 'UnauthorizedError');
        await refused(t, await get(s, path, ''), 401, MESSAGES.noHeader, 'UnauthorizedError');
        await refused(
          t,
          await get(s, path, `Token ${projectKey.secretKey}`),
          401,
          MESSAGES.badHeader,
          'UnauthorizedError',
        );
        await refused(t, await get(s, path, projectKey.secretKey), 401, MESSAGES.badHeader, 'UnauthorizedError');
        await refused(t, await get(s, path, 'Bearer'), 401, MESSAGES.badHeader, 'UnauthorizedError');
        // The public key alone is rejected (docs/public-api.md, Authentication), whichever way it comes.
        const bothKeys = /needs both the public key and the secret key, sent with Basic auth/;
        await refused(t, await get(s, path, `Bearer ${projectKey.publicKey}`), 401, bothKeys, 'UnauthorizedError');
        await refused(t, await get(s, path, basic(projectKey.publicKey, '')), 401, bothKeys, 'UnauthorizedError');
        await refused(t, await get(s, path, basic(projectKey.publicKey)), 401, bothKeys, 'UnauthorizedError');
        // Malformed Basic, unknown key, wrong secret.
        await refused(
          t,
          await get(s, path, 'Basic !!not-base64!!'),
          401,
          MESSAGES.invalidCredentials,
          'UnauthorizedError',
        );
        await refused(t, await get(s, path, 'Basic'), 401, MESSAGES.invalidCredentials, 'UnauthorizedError');
        await refused(
          t,
          await get(s, path, basic('', projectKey.secretKey)),
          401,
          MESSAGES.invalidCredentials,
          'UnauthorizedError',
        );
        await refused(
          t,
          await get(s, path, basic('pk-svc-unknown', projectKey.secretKey)),
          401,
          MESSAGES.invalidCredentials,
          'UnauthorizedError',
        );
        await refused(
          t,
          await get(s, path, basic(projectKey.publicKey, `${projectKey.secretKey}x`)),
          401,
          MESSAGES.invalidCredentials,
          'UnauthorizedError',
        );
        await refused(
          t,
          await get(s, path, basic(projectKey.publicKey, ingestKey.secretKey)),
          401,
          MESSAGES.invalidCredentials,
          'UnauthorizedError',
        );
        // Expired: only the holder of the secret learns it.
        await refused(t, await get(s, path, auth(expiredKey)), 401, MESSAGES.expired, 'UnauthorizedError');
        await refused(
          t,
          await get(s, path, basic(expiredKey.publicKey, 'wrong')),
          401,
          MESSAGES.invalidCredentials,
          'UnauthorizedError',
        );
      }
      t.equal(
        (
          await get(
            s,
            '/projects',
            `basic ${Buffer.from(`${projectKey.publicKey}:${projectKey.secretKey}`).toString('base64')}`,
          )
        ).status,
        200,
        'scheme is case-insensitive',
      );
    });

    t.test('a key expires at its expiry instant, not a millisecond later', async (t) => {
      const created = Date.now();
      const key = await createApiKey(db, {
        kind: 'project',
        organizationId: 'default',
        projectId: 'default',
        now: created,
      });
      const expiry = sixMonthsAfter(created).getTime();
      t.teardown(() => {
        clock.at = undefined;
      });
      clock.at = expiry - 1;
      t.equal((await get(s, '/projects', auth(key))).status, 200, 'one millisecond before');
      clock.at = expiry;
      await refused(t, await get(s, '/projects', auth(key)), 401, MESSAGES.expired, 'UnauthorizedError');
    });

    t.test('wrong key kinds and ingestion-only projects', async (t) => {
      // GET /projects serves both kinds: an organization key lists the organization's projects (public-organization.test.ts).
      t.equal((await get(s, '/projects', auth(orgKey))).status, 200);
      await refused(t, await get(s, '/traces', auth(orgKey)), 401, MESSAGES.organizationKey, 'UnauthorizedError');
      await refused(t, await get(s, '/traces', auth(ingestKey)), 403, /ingestion-only/, 'ForbiddenError');
      const check = await get(s, '/projects', auth(ingestKey));
      t.equal(check.status, 200, 'an ingestion-only key may still check its credentials');
      t.equal(check.body.data[0].id, 'ingest');
    });

    t.test('unknown paths and methods answer in the envelope, without a key', async (t) => {
      await refused(t, await get(s, '/nope'), 404, 'No public API endpoint at GET /api/public/nope', 'NotFoundError');
      // `/projects/` is the organization routes' `/projects/{projectId}` (PUT, DELETE), not GET /projects.
      await refused(t, await get(s, '/projects/'), 405, /GET is not allowed/, 'MethodNotAllowedError');
      const res = await fetch(`${s.adminUrl}/api/public/projects`, { method: 'DELETE' });
      t.equal(res.status, 405);
      t.equal(res.headers.get('allow'), 'GET, POST');
      t.match(await res.json(), { error: 'MethodNotAllowedError', message: /DELETE is not allowed/ });
    });

    t.test("GET /projects returns exactly the key's project", async (t) => {
      const r = await get(s, '/projects', auth(projectKey));
      t.equal(r.status, 200);
      t.match(r.headers.get('content-type'), /^application\/json/);
      t.same(r.body, {
        data: [
          {
            id: 'default',
            name: 'Default',
            organization: { id: 'default', name: 'Default organization' },
            metadata: {},
          },
        ],
      });
    });

    t.test('GET /traces', async (t) => {
      await insertTraces(db, TRACES);
      await insertObservations(db, [
        { projectId: 'default', id: 'o-2', traceId: 'tr-1', type: 'GENERATION', startTime: at(100), totalCost: 0.002 },
        { projectId: 'default', id: 'o-1', traceId: 'tr-1', type: 'GENERATION', startTime: at(10), totalCost: 0.001 },
        { projectId: 'default', id: 'o-3', traceId: 'tr-1', type: 'SPAN', startTime: at(200), totalCost: 5 },
      ]);
      const list = async (query: string) => {
        const r = await get(s, `/traces${query}`, auth(projectKey));
        if (r.status !== 200) return { status: r.status, body: r.body, ids: [] as string[] };
        return { status: r.status, body: r.body, ids: (r.body.data as any[]).map((x) => x.id) };
      };

      t.test('item shape and default order (newest first)', async (t) => {
        const r = await list('');
        t.equal(r.status, 200);
        t.same(r.ids, ['tr-3', 'tr-2', 'tr-1']);
        t.same(r.body.meta, { page: 1, limit: 50, totalItems: 3, totalPages: 1 });
        const item = r.body.data[2];
        const { createdAt, updatedAt, ...rest } = item;
        t.match(createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        t.match(updatedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        t.same(rest, {
          id: 'tr-1',
          timestamp: '2026-03-01T10:00:00.000Z',
          name: 'charlie',
          input: { q: 'hi' },
          output: 'ok',
          sessionId: 's1',
          release: 'r1',
          version: 'v1',
          userId: 'u1',
          metadata: { a: 1 },
          tags: ['env:prod', 'beta'],
          public: false,
          environment: 'default',
          htmlPath: '/project/default/traces/tr-1',
          latency: 0.19,
          totalCost: 0.003,
          observations: ['o-1', 'o-2', 'o-3'],
          scores: [],
          projectId: 'default',
          bookmarked: false,
          externalId: null,
          parentTraceId: null,
          parentObservationId: null,
        });
        // Langfuse's latency runs over the observations (here 10 ms to 200 ms, none ended), not the trace's own times.
        t.equal(r.body.data[1].latency, 0, 'a trace without observations reports latency 0');
        t.same(r.body.data[1].observations, []);
        t.equal(r.body.data[0].latency, 0, 'also when it ended');
        t.same(r.body.data[0].tags, []);
      });

      t.test('page and limit bounds', async (t) => {
        t.equal((await list('?limit=100')).status, 200, 'limit 100');
        const over = await list('?limit=101');
        t.equal(over.status, 400);
        t.same(over.body, {
          message: 'Invalid request data',
          error: [{ path: ['limit'], message: 'must be at most 100' }],
        });
        t.match((await list('?limit=0')).body, {
          message: 'Invalid request data',
          error: [{ path: ['limit'], message: 'must be at least 1' }],
        });
        t.equal((await list('?limit=1')).status, 200, 'limit 1');
        t.match((await list('?page=0')).body, { error: [{ path: ['page'], message: 'must be at least 1' }] });
        t.equal((await list('?limit=abc')).status, 400);
        t.equal((await list('?limit=2.5')).status, 400);
        t.equal((await list('?page=2147483648')).status, 400, 'page beyond 2^31-1');
        t.equal((await list('?page=2147483647')).status, 200, 'page 2^31-1 (empty)');

        const p1 = await list('?limit=2');
        t.same(p1.ids, ['tr-3', 'tr-2']);
        t.same(p1.body.meta, { page: 1, limit: 2, totalItems: 3, totalPages: 2 });
        const p2 = await list('?limit=2&page=2');
        t.same(p2.ids, ['tr-1']);
        t.same(p2.body.meta, { page: 2, limit: 2, totalItems: 3, totalPages: 2 });
        const p3 = await list('?limit=2&page=3');
        t.same(p3.ids, []);
        t.same(p3.body.meta, { page: 3, limit: 2, totalItems: 3, totalPages: 2 });
      });

      t.test('filters', async (t) => {
        t.same((await list('?userId=u1')).ids, ['tr-3', 'tr-1'], 'userId (and not the other project)');
        t.same((await list('?name=alpha')).ids, ['tr-2'], 'name (and not the other project)');
        t.same((await list('?sessionId=s1')).ids, ['tr-1'], 'sessionId');
        t.same((await list(`?fromTimestamp=${at(1000)}`)).ids, ['tr-3', 'tr-2'], 'fromTimestamp is inclusive');
        t.same((await list(`?toTimestamp=${at(2000)}`)).ids, ['tr-2', 'tr-1'], 'toTimestamp is exclusive');
        t.same(
          (await list(`?fromTimestamp=${at(1)}&toTimestamp=${encodeURIComponent('2026-03-01T11:00:02+01:00')}`)).ids,
          ['tr-2'],
          'both, with an offset',
        );
        t.same((await list('?tags=env')).ids, ['tr-2', 'tr-1'], 'a tag key');
        t.same((await list('?tags=env:prod')).ids, ['tr-1'], 'a rendered key:value tag');
        t.same((await list('?tags=env:nope')).ids, [], 'a key with another value');
        t.same((await list('?tags=beta')).ids, ['tr-1'], 'a key with an empty value');
        t.same((await list('?tags=env&tags=beta')).ids, ['tr-1'], 'repeated tags must all match');
        t.same((await list('?environment=staging')).ids, ['tr-2'], 'environment');
        t.same(
          (await list('?environment=staging&environment=default')).ids,
          ['tr-3', 'tr-2', 'tr-1'],
          'environments, any of',
        );
        t.same((await list('?release=r1&version=v1')).ids, ['tr-1'], 'release and version');
        t.same((await list('?fields=core,io')).ids, ['tr-3', 'tr-2', 'tr-1'], 'fields is accepted and ignored');
        t.match((await list('?fromTimestamp=yesterday')).body, { error: [{ path: ['fromTimestamp'] }] });
        t.equal((await list('?toTimestamp=2026-03-01T10:00:00')).status, 400, 'a date-time without a zone');
        t.same(
          (await list('?filter=[]')).ids,
          ['tr-3', 'tr-2', 'tr-1'],
          'an empty structured filter keeps every trace',
        );
        t.match((await list('?filter=nope')).body, {
          message: 'Invalid request data',
          error: [{ path: ['filter'], message: /JSON array/ }],
        });
      });

      t.test('orderBy', async (t) => {
        t.same((await list('?orderBy=timestamp.asc')).ids, ['tr-1', 'tr-2', 'tr-3']);
        t.same((await list('?orderBy=timestamp.desc')).ids, ['tr-3', 'tr-2', 'tr-1']);
        t.same((await list('?orderBy=name.asc')).ids, ['tr-2', 'tr-3', 'tr-1']);
        t.same((await list('?orderBy=name.desc')).ids, ['tr-1', 'tr-3', 'tr-2']);
        const bad = await list('?orderBy=id.asc');
        t.equal(bad.status, 400);
        t.match(bad.body, {
          message: 'Invalid request data',
          error: [{ path: ['orderBy'], message: /must be one of/ }],
        });
      });
    });
  });
}
