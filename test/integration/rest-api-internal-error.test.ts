// Unexpected failures under /v1 (docs/rest-api.md, docs/architecture.md "Errors"): a 500 internal_error whose error id
// is also logged once, with the request id, and still the headers every REST API answer carries. The store here is a
// stand-in that fails on purpose, in authentication or in a route.
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import t, { type Test } from 'tap';
import type { AdminContext } from '../../admin/context.ts';
import { registerRestApi } from '../../admin/rest-api/register.ts';
import type { GatewayConfig } from '../../src/platform/config/types.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { MemoryCounters } from '../../src/platform/store/counters/memory-counters.ts';
import type { Database, QueryResult } from '../../src/platform/store/database.ts';
import { secretSha256 } from '../../src/platform/store/repos/api-keys.ts';
import { checkError } from '../helpers/rest-api.ts';

const SECRET = 'sk-svc-stand-in';

/** Answers the key and project lookups; anything else fails when `failAuth` is off, everything when on. */
function failingStore(failAuth: boolean): Database {
  const query = async (sql: string): Promise<QueryResult<any>> => {
    if (failAuth) throw new Error('connection refused');
    if (sql.includes('FROM api_keys')) {
      return {
        rowCount: 1,
        rows: [
          {
            id: 'key-1',
            kind: 'project',
            organization_id: 'org',
            project_id: 'p',
            public_key: 'pk-svc-1',
            secret_sha256: secretSha256(SECRET),
            display_secret: 'sk-svc-...',
            created_at: '2026-01-01T00:00:00Z',
            expires_at: '2999-01-01T00:00:00Z',
          },
        ],
      };
    }
    if (sql.includes('FROM projects')) {
      return {
        rowCount: 1,
        rows: [
          {
            id: 'p',
            organization_id: 'org',
            organization_name: 'Org',
            name: 'P',
            max_key_expiry_hours: 720,
            ingestion_only: false,
            metadata: {},
            created_at: '2026-01-01T00:00:00Z',
          },
        ],
      };
    }
    throw new Error('relation "traces" is unavailable');
  };
  const queryable = { query: query as Database['query'], exec: async () => {} };
  return { kind: 'postgres', ...queryable, transaction: async (work) => work(queryable), close: async () => {} };
}

async function serve(t: Test, failAuth: boolean) {
  const logged: { msg: string; fields?: Record<string, unknown> }[] = [];
  const log = {
    info() {},
    warn() {},
    error: (msg: string, fields?: Record<string, unknown>) => void logged.push({ msg, fields }),
    child: () => log,
  };
  const ctx = {
    db: failingStore(failAuth),
    clock: systemClock,
    counters: new MemoryCounters(systemClock),
    log,
    config: () => ({ api: { rate_limit: { requests_per_minute: 1000, burst: 100 } } }) as GatewayConfig,
  } as unknown as AdminContext;
  const app = Fastify();
  await app.register(
    (scope, _opts, done) => {
      registerRestApi(scope, ctx);
      done();
    },
    { prefix: '/v1' },
  );
  await app.ready();
  t.teardown(() => app.close());
  return { app, logged };
}

for (const [label, failAuth, path] of [
  ['authentication', true, '/v1/traces'],
  ['a route', false, '/v1/traces/t-1'],
] as const) {
  t.test(`a failure in ${label} is a logged 500 internal_error`, async (t) => {
    const { app, logged } = await serve(t, failAuth);
    const requestId = `req-${randomUUID()}`;
    const res = await app.inject({
      method: 'GET',
      url: path,
      headers: { authorization: `Bearer ${SECRET}`, 'x-request-id': requestId },
    });
    const r = { status: res.statusCode, headers: new Headers(res.headers as Record<string, string>), body: res.json() };
    checkError(t, r, 500, 'internal_error');
    const errorId = r.body.error.details.errorId;
    t.match(errorId, /^[0-9a-f-]{36}$/, 'an error id');
    t.equal(r.body.error.message, `Internal server error (error id ${errorId}).`);
    t.equal(r.headers.get('x-request-id'), requestId);
    t.equal(logged.length, 1, 'logged once');
    t.match(logged[0], { msg: 'REST API request failed', fields: { errorId, requestId, method: 'GET', url: path } });
    t.notMatch(JSON.stringify(r.body), /connection refused|unavailable/, 'the cause stays in the log');
  });
}
