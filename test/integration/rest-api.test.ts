// The versioned REST API under /v1 on the admin listener (docs/rest-api.md): keys and every way
// they fail, the error envelope, request ids, rate-limit headers, traces, spans, agents, paging and filters, and a
// gateway request read back as a trace. Runs against both store backends, one service per backend.
import t, { type Test } from 'tap';
import { addAgent } from '../../src/platform/store/repos/agents.ts';
import { createApiKey, type CreatedApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { getTrace, type TraceRow } from '../../src/platform/store/repos/traces.ts';
import { getObservation } from '../../src/platform/store/repos/observations.ts';
import { insertObservations, insertTraces } from '../../src/platform/store/repos/trace-batch.ts';
import { signIn } from '../helpers/dashboard.ts';
import { startFakeOpenAI } from '../helpers/fake-openai.ts';
import { basic, bearer, call, checkCommonHeaders, checkError, type CallOptions } from '../helpers/rest-api.ts';
import { TEST_KEY, baseConfig, chatBody, openaiDeployment, postJson, startTestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';
import { sleep } from '../helpers/wait-for.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MONTH_MS = 30 * 86_400_000;

const MESSAGES = {
  missing: 'Missing Authorization header; send Authorization: Bearer <secret key>.',
  malformed:
    'Malformed Authorization header; send Authorization: Bearer <secret key> or Basic base64(<public key>:<secret key>).',
  publicKeyOnly: 'A public key alone is not accepted; send the secret key as Bearer, or both keys with Basic auth.',
  invalid: 'Invalid API key.',
  expired: 'API key has expired.',
  organizationKey: 'The REST API needs a project API key; an organization API key was sent.',
  ingestionOnly:
    'This project is ingestion-only: its API keys may create and update traces and spans but not read them.',
};

// Traces of the `lists` project for paging and filters, newest first: l5, l4, l3, l2, l1.
const LIST_TRACES: TraceRow[] = [
  {
    projectId: 'lists',
    id: 'l1',
    name: 'one',
    status: 'completed',
    startTime: '2025-03-01T10:00:00.000Z',
    endTime: '2025-03-01T10:00:01.500Z',
    agentId: 'agent-planner',
    source: 'api',
    input: 'q1',
    output: 'a1',
    metadata: { n: 1 },
    tags: { env: 'prod' },
  },
  {
    projectId: 'lists',
    id: 'l2',
    name: 'two',
    status: 'in_progress',
    startTime: '2025-03-01T23:59:59.999Z',
    agentId: 'agent-writer',
    source: 'api',
  },
  {
    projectId: 'lists',
    id: 'l3',
    name: 'three',
    status: 'error',
    startTime: '2025-03-02T00:00:00.000Z',
    endTime: '2025-03-02T00:00:00.250Z',
    agentId: 'agent-planner',
    source: 'gateway',
  },
  {
    projectId: 'lists',
    id: 'l4',
    name: 'four',
    status: 'completed',
    startTime: '2025-03-02T12:00:00.000Z',
    endTime: '2025-03-02T12:00:02.000Z',
    source: 'api',
  },
  {
    projectId: 'lists',
    id: 'l5',
    name: 'five',
    status: 'completed',
    startTime: '2025-03-03T08:00:00.000Z',
    endTime: '2025-03-03T08:00:00.001Z',
    agentId: 'agent-writer',
    source: 'api',
  },
];

const idsOf = (r: { body: any }) => (r.body?.data ?? []).map((x: { id: string }) => x.id);

for (const backend of STORE_BACKENDS) {
  t.test(`REST API on ${backend}`, async (t) => {
    const upstream = await startFakeOpenAI();
    t.teardown(() => upstream.close());
    const svc = await startTestService(
      t,
      baseConfig({
        projects: [{ id: 'default', name: 'Default' }, { id: 'ingest', ingestion_only: true }, { id: 'lists' }],
        // Generous limits: this suite makes hundreds of calls; the limit itself is tested in rest-api-rate-limit.
        api: { rate_limit: { requests_per_minute: 1_000_000, burst: 100_000 } },
        model_groups: [
          {
            name: 'demo',
            created_at: '2026-11-21T00:00:00Z',
            routing: { retries: 2, bench_ms: 0 },
            deployments: [openaiDeployment('a', upstream.url), openaiDeployment('b', upstream.url)],
          },
        ],
        plugins: [{ use: 'auth' }, { use: 'router' }, { use: 'tracing' }],
      }),
      { backend },
    );
    const db = svc.service.db;
    const now = Date.now();
    const newKey = (projectId: string, at = now) =>
      createApiKey(db, { kind: 'project', organizationId: 'default', projectId, now: at });
    const key = await newKey('default');
    const otherKey = await newKey('default');
    const ingestKey = await newKey('ingest');
    const listsKey = await newKey('lists');
    const orgKey = await createApiKey(db, { kind: 'organization', organizationId: 'default', now });
    const expiredKey = await newKey('default', now - 7 * MONTH_MS);

    const api = (method: string, path: string, o: CallOptions = {}) =>
      call(svc.adminUrl, method, path, { auth: bearer(key), ...o });
    const createTrace = async (t: Test, body: Record<string, unknown> = { name: 'run' }, k: CreatedApiKey = key) => {
      const r = await api('POST', '/traces', { json: body, auth: bearer(k) });
      t.equal(r.status, 201, 'trace created');
      return r.body as { id: string; startTime: string };
    };

    t.test('authentication failures: 401 authentication_failed with the reason', async (t) => {
      const cases: [string, CallOptions, string][] = [
        ['no Authorization header', { auth: undefined }, MESSAGES.missing],
        ['an empty header', { auth: '' }, MESSAGES.missing],
        ['Bearer without a value', { auth: 'Bearer' }, MESSAGES.malformed],
        ['Bearer with two values', { auth: `Bearer ${key.secretKey} extra` }, MESSAGES.malformed],
        ['an unknown scheme', { auth: `Token ${key.secretKey}` }, MESSAGES.malformed],
        ['Basic that is not base64', { auth: 'Basic ***' }, MESSAGES.malformed],
        [
          'Basic without a colon',
          { auth: `Basic ${Buffer.from(key.publicKey).toString('base64')}` },
          MESSAGES.malformed,
        ],
        [
          'Basic with a NUL in the public key',
          { auth: basic(`${key.publicKey}\u0000`, key.secretKey) },
          MESSAGES.malformed,
        ],
        ['an unknown secret as Bearer', { auth: 'Bearer sk-svc-not-a-key' }, MESSAGES.invalid],
        ['the public key alone as Bearer', { auth: `Bearer ${key.publicKey}` }, MESSAGES.publicKeyOnly],
        ['Basic with an empty secret', { auth: basic(key.publicKey, '') }, MESSAGES.publicKeyOnly],
        ['Basic with a wrong secret', { auth: basic(key.publicKey, 'sk-svc-wrong') }, MESSAGES.invalid],
        ["Basic with another key's secret", { auth: basic(key.publicKey, otherKey.secretKey) }, MESSAGES.invalid],
        ['Basic with an unknown public key', { auth: basic('pk-svc-unknown', key.secretKey) }, MESSAGES.invalid],
        ['an expired key as Bearer', { auth: bearer(expiredKey) }, MESSAGES.expired],
        ['an expired key with Basic', { auth: basic(expiredKey.publicKey, expiredKey.secretKey) }, MESSAGES.expired],
      ];
      for (const [label, o, message] of cases) {
        for (const [method, path, json] of [
          ['GET', '/traces', undefined],
          ['POST', '/traces', { name: 'x' }],
        ] as const) {
          const r = await call(svc.adminUrl, method, path, { ...o, json });
          t.comment(`${label}, ${method}`);
          checkError(t, r, 401, 'authentication_failed', { message });
        }
      }
    });

    t.test('key kinds: an organization key is 403, a project key works with Bearer and with Basic', async (t) => {
      checkError(t, await api('GET', '/traces', { auth: bearer(orgKey) }), 403, 'permission_denied', {
        message: MESSAGES.organizationKey,
      });
      checkError(
        t,
        await api('POST', '/traces', { auth: bearer(orgKey), json: { name: 'x' } }),
        403,
        'permission_denied',
        { message: MESSAGES.organizationKey },
      );
      const viaBearer = await api('GET', '/agents');
      t.equal(viaBearer.status, 200);
      checkCommonHeaders(t, viaBearer);
      const viaBasic = await api('GET', '/agents', { auth: basic(key.publicKey, key.secretKey) });
      t.equal(viaBasic.status, 200);
      t.same(viaBasic.body, viaBearer.body);
      const created = await api('POST', '/traces', {
        auth: basic(key.publicKey, key.secretKey),
        json: { name: 'basic' },
      });
      t.equal(created.status, 201);
      t.equal((await getTrace(db, 'default', created.body.id))?.name, 'basic', 'stored in the key project');
    });

    t.test(
      'an ingestion-only project: reads are 403, writes go through and answer without trace content',
      async (t) => {
        for (const path of ['/traces', '/traces/anything', '/agents']) {
          checkError(t, await api('GET', path, { auth: bearer(ingestKey) }), 403, 'permission_denied', {
            message: MESSAGES.ingestionOnly,
          });
        }
        const created = await api('POST', '/traces', {
          auth: bearer(ingestKey),
          json: { name: 'ingested', input: 'secret input', metadata: { m: 1 } },
        });
        t.equal(created.status, 201);
        t.match(
          created.body,
          { name: 'ingested', status: 'in_progress', input: 'secret input' },
          'the create answer echoes what was sent',
        );
        const span = await api('POST', `/traces/${created.body.id}/spans`, {
          auth: bearer(ingestKey),
          json: { name: 'step', attributes: { a: 1 } },
        });
        t.equal(span.status, 201);
        const endedSpan = await api('PATCH', `/spans/${span.body.id}`, {
          auth: bearer(ingestKey),
          json: { output: { rows: 3 } },
        });
        t.equal(endedSpan.status, 200);
        t.same(Object.keys(endedSpan.body).sort(), [
          'endTime',
          'id',
          'name',
          'parentId',
          'startTime',
          'status',
          'traceId',
        ]);
        t.equal(endedSpan.body.status, 'ok');
        const patched = await api('PATCH', `/traces/${created.body.id}`, {
          auth: bearer(ingestKey),
          json: { status: 'completed', output: 'done' },
        });
        t.equal(patched.status, 200);
        t.same(
          Object.keys(patched.body).sort(),
          ['duration', 'endTime', 'id', 'name', 'startTime', 'status'],
          'no input, output, metadata or spans',
        );
        t.equal(patched.body.status, 'completed');
        const stored = await getTrace(db, 'ingest', created.body.id);
        t.match(stored, {
          status: 'completed',
          output: 'done',
          input: 'secret input',
          metadata: { m: 1 },
          source: 'api',
        });
        t.same((await getObservation(db, 'ingest', span.body.id))?.output, { rows: 3 });
        checkError(t, await api('GET', `/traces/${created.body.id}`), 404, 'not_found', {
          message: `Trace "${created.body.id}" not found.`,
        });
      },
    );

    t.test('X-Request-ID: echoed when 1 to 200 visible ASCII characters, otherwise generated', async (t) => {
      const echoed = await api('GET', '/agents', { headers: { 'x-request-id': 'client-req-42' } });
      t.equal(echoed.headers.get('x-request-id'), 'client-req-42');
      const onError = await api('GET', '/traces/nope', { headers: { 'x-request-id': 'client-req-43' } });
      t.equal(onError.status, 404);
      t.equal(onError.headers.get('x-request-id'), 'client-req-43', 'echoed on errors too');
      const onAuthError = await api('GET', '/traces', {
        auth: 'Bearer x',
        headers: { 'x-request-id': 'client-req-44' },
      });
      t.equal(onAuthError.headers.get('x-request-id'), 'client-req-44', 'and on 401');
      const longest = 'r'.repeat(200);
      t.equal(
        (await api('GET', '/agents', { headers: { 'x-request-id': longest } })).headers.get('x-request-id'),
        longest,
        '200 characters echoed',
      );
      for (const [label, value] of [
        ['201 characters', 'r'.repeat(201)],
        ['a space', 'a b'],
        ['non-ASCII', 'caf\u00e9'],
      ] as const) {
        const r = await api('GET', '/agents', {
          headers: { 'x-request-id': Buffer.from(value, 'utf8').toString('latin1') },
        });
        t.match(r.headers.get('x-request-id'), UUID, `${label}: replaced by a generated id`);
      }
      const a = await api('GET', '/agents');
      const b = await api('GET', '/agents');
      t.match(a.headers.get('x-request-id'), UUID);
      t.match(b.headers.get('x-request-id'), UUID);
      t.not(a.headers.get('x-request-id'), b.headers.get('x-request-id'), 'a new id per request');
    });

    t.test('rate-limit headers on successes and errors, from the configured limit', async (t) => {
      const before = Math.floor(Date.now() / 1000);
      for (const r of [
        await api('GET', '/agents'),
        await api('GET', '/nope'),
        await api('GET', '/traces', { auth: 'Bearer nope' }),
      ]) {
        checkCommonHeaders(t, r);
        t.equal(r.headers.get('x-ratelimit-limit'), '1000000', 'limit is the configured requests per minute');
        t.ok(Number(r.headers.get('x-ratelimit-reset')) > before, 'reset is a Unix time in seconds, after now');
        t.ok(Number(r.headers.get('x-ratelimit-reset')) <= before + 61, 'at most a minute away: the end of the minute');
      }
    });

    t.test('the error envelope: unknown paths and methods, bodies that are not JSON objects', async (t) => {
      for (const [method, path] of [
        ['GET', '/nope'],
        ['GET', ''],
        ['GET', '/'],
        ['DELETE', '/traces/x'],
        ['PUT', '/traces'],
        ['POST', '/agents'],
        ['GET', '/spans/x'],
      ] as const) {
        checkError(t, await api(method, path), 404, 'not_found', { details: { method, path: `/v1${path}` } });
      }
      checkError(t, await call(svc.adminUrl, 'GET', '/nope'), 401, 'authentication_failed', {
        message: MESSAGES.missing,
      });
      checkError(
        t,
        await api('POST', '/traces', { raw: '{"name":', contentType: 'application/json' }),
        400,
        'invalid_request',
        {
          message: 'The request body is not valid JSON.',
          details: { reason: 'is not valid JSON' },
        },
      );
      checkError(
        t,
        await api('POST', '/traces', { raw: 'name=x', contentType: 'text/plain' }),
        400,
        'invalid_request',
        {
          details: { field: 'Content-Type', reason: 'must be application/json' },
        },
      );
      checkError(
        t,
        await api('PATCH', '/traces/x', { raw: '', contentType: 'application/json' }),
        400,
        'invalid_request',
      );
      checkError(t, await api('POST', '/traces'), 400, 'invalid_request', {
        message: 'The request body must be an object.',
      });
      checkError(t, await api('POST', '/traces', { json: ['name'] }), 400, 'invalid_request', {
        details: { reason: 'must be an object' },
      });

      // The admin listener's body limit: 4,718,592 bytes accepted, one more refused.
      const sized = (bytes: number) => {
        const head = '{"name":"big","input":"';
        return `${head}${'x'.repeat(bytes - head.length - 2)}"}`;
      };
      const atLimit = await api('POST', '/traces', { raw: sized(4_718_592), contentType: 'application/json' });
      t.equal(atLimit.status, 201, '4,718,592 bytes accepted');
      t.equal((await getTrace(db, 'default', atLimit.body.id))?.input, 'x'.repeat(4_718_592 - 25), 'and stored whole');
      checkError(
        t,
        await api('POST', '/traces', { raw: sized(4_718_593), contentType: 'application/json' }),
        400,
        'invalid_request',
        {
          message: 'The request body is too large.',
          details: { reason: 'is too large', location: 'body' },
        },
      );
    });

    t.test('text the store cannot hold (U+0000, unpaired surrogates) is a 400 naming where it is', async (t) => {
      const reason = 'contains U+0000 or an unpaired surrogate, which cannot be stored';
      const trace = await createTrace(t, { name: 'clean' });
      const span = await api('POST', `/traces/${trace.id}/spans`, { json: { name: 'clean' } });
      const cases: [string, string, unknown, string, string][] = [
        ['POST', '/traces', { name: 'a\u0000b' }, 'name', 'body'],
        ['POST', '/traces', { name: 'x', input: 'lone \ud800 high' }, 'input', 'body'],
        ['POST', '/traces', { name: 'x', input: 'lone \udc00 low' }, 'input', 'body'],
        ['POST', '/traces', { name: 'x', metadata: { 'k\u0000': 1 } }, 'metadata.k\ufffd', 'body'],
        ['PATCH', `/traces/${trace.id}`, { output: 'a\u0000' }, 'output', 'body'],
        [
          'POST',
          `/traces/${trace.id}/spans`,
          { name: 'x', attributes: { list: ['ok', '\u0000'] } },
          'attributes.list.1',
          'body',
        ],
        ['PATCH', `/spans/${span.body.id}`, { output: { deep: ['ok', 'a\u0000'] } }, 'output.deep.1', 'body'],
        ['GET', '/traces?agent=a%00b', undefined, 'agent', 'query'],
        ['GET', '/traces/a%00b', undefined, 'id', 'path'],
        ['PATCH', '/spans/a%00b', { status: 'ok' }, 'id', 'path'],
      ];
      for (const [method, path, json, field, location] of cases) {
        checkError(t, await api(method, path, { json }), 400, 'invalid_request', {
          details: { field, reason, location },
        });
      }
      t.match(await getTrace(db, 'default', trace.id), { output: null, status: 'in_progress' }, 'nothing was written');
      t.same(
        (await api('GET', `/traces/${trace.id}`)).body.spans.map((s: { id: string }) => s.id),
        [span.body.id],
      );
      const paired = await api('POST', '/traces', { json: { name: 'emoji \ud83d\ude00', input: 'caf\u00e9' } });
      t.equal(paired.status, 201, 'paired surrogates (an emoji) and other Unicode are fine');
      t.equal((await getTrace(db, 'default', paired.body.id))?.name, 'emoji \u{1f600}');
    });

    t.test('POST /v1/traces creates an in-progress trace', async (t) => {
      const before = Date.now();
      const r = await api('POST', '/traces', {
        json: {
          name: 'research',
          input: 'What is new?',
          metadata: { user: 'u1', n: 2 },
          tags: { env: 'prod', team: 'search' },
        },
      });
      t.equal(r.status, 201);
      checkCommonHeaders(t, r);
      t.same(Object.keys(r.body).sort(), ['id', 'input', 'metadata', 'name', 'startTime', 'status', 'tags']);
      t.match(r.body, {
        id: UUID,
        name: 'research',
        startTime: ISO_MS,
        status: 'in_progress',
        input: 'What is new?',
        metadata: { user: 'u1', n: 2 },
        tags: { env: 'prod', team: 'search' },
      });
      t.ok(
        Date.parse(r.body.startTime) >= before - 1000 && Date.parse(r.body.startTime) <= Date.now() + 1000,
        'startTime is now',
      );
      const stored = await getTrace(db, 'default', r.body.id);
      t.match(stored, {
        name: 'research',
        status: 'in_progress',
        startTime: r.body.startTime,
        endTime: null,
        input: 'What is new?',
        output: null,
        metadata: { user: 'u1', n: 2 },
        tags: { env: 'prod', team: 'search' },
        source: 'api',
      });
      const minimal = await api('POST', '/traces', { json: { name: 'n'.repeat(500) } });
      t.equal(minimal.status, 201, 'a name of 500 characters is accepted');
      t.match(minimal.body, { input: null, metadata: {}, tags: {} });
    });

    t.test('POST /v1/traces refuses invalid bodies, naming the field', async (t) => {
      const cases: [unknown, string, string][] = [
        [{}, 'name', 'is required'],
        [{ input: 'x' }, 'name', 'is required'],
        [{ name: '' }, 'name', 'must not be empty'],
        [{ name: 'n'.repeat(501) }, 'name', 'must have at most 500 characters'],
        [{ name: 42 }, 'name', 'must be a string'],
        [{ name: 'x', input: { q: 1 } }, 'input', 'must be a string'],
        [{ name: 'x', metadata: [1] }, 'metadata', 'must be an object'],
        [{ name: 'x', metadata: 'm' }, 'metadata', 'must be an object'],
        [{ name: 'x', tags: ['a'] }, 'tags', 'must be an object'],
        [{ name: 'x', tags: { env: 1 } }, 'tags.env', 'must be a string'],
        [
          { name: 'x', tags: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, 'v'])) },
          'tags',
          'must have at most 100 keys',
        ],
        [{ name: 'x', status: 'completed' }, 'status', 'is not a known field'],
        [{ name: 'x', spans: [] }, 'spans', 'is not a known field'],
      ];
      for (const [json, field, reason] of cases) {
        const r = await api('POST', '/traces', { json });
        checkError(t, r, 400, 'invalid_request', {
          message: `Field ${field} ${reason}.`,
          details: { field, reason, location: 'body' },
        });
      }
    });

    t.test('GET /v1/traces/{id}: 404 for unknown ids and for traces of other projects', async (t) => {
      checkError(t, await api('GET', '/traces/no-such-trace'), 404, 'not_found', {
        message: 'Trace "no-such-trace" not found.',
        details: { resource: 'trace', id: 'no-such-trace' },
      });
      const theirs = await createTrace(t, { name: 'lists trace' }, listsKey);
      checkError(t, await api('GET', `/traces/${theirs.id}`), 404, 'not_found');
      t.equal(
        (await api('GET', `/traces/${theirs.id}`, { auth: bearer(listsKey) })).status,
        200,
        'its own project reads it',
      );
    });

    t.test('PATCH /v1/traces/{id}: output and metadata while in progress, then one finishing status', async (t) => {
      const created = await createTrace(t, { name: 'patched', input: 'in', metadata: { a: 1, keep: true } });
      const path = `/traces/${created.id}`;

      const partial = await api('PATCH', path, { json: { output: 'partial', metadata: { a: 2, b: 'x' } } });
      t.equal(partial.status, 200);
      checkCommonHeaders(t, partial);
      t.match(partial.body, {
        id: created.id,
        status: 'in_progress',
        endTime: null,
        duration: null,
        output: 'partial',
        metadata: { a: 2, b: 'x', keep: true },
      });

      const stillOpen = await api('PATCH', path, { json: { status: 'in_progress' } });
      t.equal(stillOpen.status, 200, 'in_progress to in_progress is accepted');
      t.equal(stillOpen.body.endTime, null);

      const completed = await api('PATCH', path, {
        json: { status: 'completed', output: 'done', metadata: { b: 'y' } },
      });
      t.equal(completed.status, 200);
      const body = completed.body;
      t.same(Object.keys(body), [
        'id',
        'name',
        'startTime',
        'endTime',
        'duration',
        'status',
        'input',
        'output',
        'spans',
        'tokens',
        'cost',
        'metadata',
        'tags',
      ]);
      t.match(body, {
        status: 'completed',
        endTime: ISO_MS,
        output: 'done',
        input: 'in',
        spans: [],
        tokens: 0,
        cost: 0,
        metadata: { a: 2, b: 'y', keep: true },
        tags: {},
      });
      t.equal(
        body.duration,
        Date.parse(body.endTime) - Date.parse(body.startTime),
        'duration is milliseconds from start to end',
      );
      t.ok(body.duration >= 0);
      t.match(await getTrace(db, 'default', created.id), {
        status: 'completed',
        endTime: body.endTime,
        output: 'done',
        metadata: { a: 2, b: 'y', keep: true },
      });

      const again = await api('PATCH', path, { json: { status: 'completed', output: 'done, amended' } });
      t.equal(again.status, 200, 'the same status again is accepted');
      t.equal(again.body.endTime, body.endTime, 'endTime is kept');
      t.equal(again.body.output, 'done, amended');
      const late = await api('PATCH', path, { json: { metadata: { reviewed: true } } });
      t.equal(late.status, 200, 'a finished trace takes metadata');
      t.equal(late.body.metadata.reviewed, true);

      for (const status of ['error', 'in_progress']) {
        checkError(t, await api('PATCH', path, { json: { status } }), 400, 'invalid_request', {
          message: `Field status cannot change from completed to ${status}: a finished trace keeps its status.`,
          details: {
            field: 'status',
            reason: `cannot change from completed to ${status}: a finished trace keeps its status`,
          },
        });
      }
      t.equal((await getTrace(db, 'default', created.id))?.status, 'completed', 'a refused change changes nothing');

      const failed = await createTrace(t, { name: 'fails' });
      const errored = await api('PATCH', `/traces/${failed.id}`, { json: { status: 'error', output: 'boom' } });
      t.match(errored.body, { status: 'error', endTime: ISO_MS, output: 'boom' });
      checkError(
        t,
        await api('PATCH', `/traces/${failed.id}`, { json: { status: 'completed' } }),
        400,
        'invalid_request',
        { details: { field: 'status' } },
      );
    });

    t.test('PATCH /v1/traces/{id} refuses invalid bodies and unknown traces', async (t) => {
      const created = await createTrace(t);
      const path = `/traces/${created.id}`;
      const cases: [unknown, string | undefined, string][] = [
        [{}, undefined, 'must set at least one of output, status, metadata'],
        [{ status: 'done' }, 'status', 'must be one of in_progress, completed, error'],
        [{ output: 5 }, 'output', 'must be a string'],
        [{ metadata: [] }, 'metadata', 'must be an object'],
        [{ name: 'renamed' }, 'name', 'is not a known field'],
        [{ endTime: '2026-01-01T00:00:00Z' }, 'endTime', 'is not a known field'],
      ];
      for (const [json, field, reason] of cases) {
        checkError(t, await api('PATCH', path, { json }), 400, 'invalid_request', {
          details: field ? { field, reason } : { reason },
        });
      }
      t.match(
        await getTrace(db, 'default', created.id),
        { status: 'in_progress', output: null, name: 'run' },
        'nothing changed',
      );
      checkError(t, await api('PATCH', '/traces/no-such-trace', { json: { status: 'completed' } }), 404, 'not_found', {
        details: { resource: 'trace', id: 'no-such-trace' },
      });
      const theirs = await createTrace(t, { name: 'theirs' }, listsKey);
      checkError(t, await api('PATCH', `/traces/${theirs.id}`, { json: { status: 'completed' } }), 404, 'not_found');
      t.equal((await getTrace(db, 'lists', theirs.id))?.status, 'in_progress', "another project's trace is untouched");
    });

    t.test('spans: created under a trace, parentId within the trace, ended by PATCH', async (t) => {
      const trace = await createTrace(t, { name: 'with spans' });
      const spans = `/traces/${trace.id}/spans`;
      const before = Date.now();
      const root = await api('POST', spans, { json: { name: 'plan', attributes: { step: 1, tool: 'search' } } });
      t.equal(root.status, 201);
      checkCommonHeaders(t, root);
      t.same(root.body, {
        id: root.body.id,
        traceId: trace.id,
        name: 'plan',
        parentId: null,
        startTime: root.body.startTime,
        endTime: null,
        status: null,
        attributes: { step: 1, tool: 'search' },
        output: null,
        type: 'SPAN',
      });
      t.match(root.body.id, UUID);
      t.ok(
        Date.parse(root.body.startTime) >= before - 1000 && Date.parse(root.body.startTime) <= Date.now() + 1000,
        'startTime defaults to now',
      );

      const child = await api('POST', spans, {
        json: { name: 'fetch', parentId: root.body.id, startTime: '2026-01-01T00:00:00+01:00' },
      });
      t.equal(child.status, 201);
      t.match(child.body, { parentId: root.body.id, startTime: '2025-12-31T23:00:00.000Z', attributes: {} });
      const explicitTop = await api('POST', spans, { json: { name: 'top', parentId: null } });
      t.equal(explicitTop.status, 201);
      t.equal(explicitTop.body.parentId, null);
      t.match(await getObservation(db, 'default', child.body.id), {
        traceId: trace.id,
        type: 'SPAN',
        name: 'fetch',
        parentObservationId: root.body.id,
        startTime: '2025-12-31T23:00:00.000Z',
        endTime: null,
      });

      const elsewhere = await createTrace(t, { name: 'elsewhere' });
      const foreign = await api('POST', `/traces/${elsewhere.id}/spans`, { json: { name: 'foreign' } });
      for (const parentId of ['no-such-span', foreign.body.id, trace.id]) {
        checkError(t, await api('POST', spans, { json: { name: 'orphan', parentId } }), 400, 'invalid_request', {
          details: { field: 'parentId', reason: 'must be the id of a span of this trace, or null' },
        });
      }
      const invalid: [unknown, string, string][] = [
        [{}, 'name', 'is required'],
        [{ name: '' }, 'name', 'must not be empty'],
        [{ name: 'x', parentId: 7 }, 'parentId', 'must be a string or null'],
        [
          { name: 'x', startTime: 'yesterday' },
          'startTime',
          'must be an ISO 8601 date-time with a time zone, e.g. 2026-01-31T12:00:00Z',
        ],
        [
          { name: 'x', startTime: '2026-01-01T00:00:00' },
          'startTime',
          'must be an ISO 8601 date-time with a time zone, e.g. 2026-01-31T12:00:00Z',
        ],
        [{ name: 'x', attributes: 'a' }, 'attributes', 'must be an object'],
        [{ name: 'x', output: 1 }, 'output', 'is not a known field'],
      ];
      for (const [json, field, reason] of invalid)
        checkError(t, await api('POST', spans, { json }), 400, 'invalid_request', { details: { field, reason } });
      checkError(t, await api('POST', '/traces/no-such-trace/spans', { json: { name: 'x' } }), 404, 'not_found', {
        details: { resource: 'trace' },
      });
      const theirs = await createTrace(t, { name: 'theirs' }, listsKey);
      checkError(t, await api('POST', `/traces/${theirs.id}/spans`, { json: { name: 'x' } }), 404, 'not_found');

      // Ending: endTime not before startTime; once ended, only output may change.
      const childPath = `/spans/${child.body.id}`;
      checkError(
        t,
        await api('PATCH', childPath, { json: { endTime: '2025-12-31T22:59:59.999Z', status: 'ok' } }),
        400,
        'invalid_request',
        {
          details: { field: 'endTime', reason: "must not be before the span's startTime 2025-12-31T23:00:00.000Z" },
        },
      );
      t.equal(
        (await getObservation(db, 'default', child.body.id))?.endTime,
        null,
        'a refused end leaves the span open',
      );
      const ended = await api('PATCH', childPath, {
        json: { endTime: '2025-12-31T23:00:02Z', status: 'ok', output: { docs: 3 } },
      });
      t.equal(ended.status, 200);
      t.same(ended.body, { ...child.body, endTime: '2025-12-31T23:00:02.000Z', status: 'ok', output: { docs: 3 } });
      const retried = await api('PATCH', childPath, {
        json: { endTime: '2025-12-31T23:00:02.000Z', status: 'ok', output: 'amended' },
      });
      t.equal(retried.status, 200, 'the same end again is accepted');
      t.equal(retried.body.output, 'amended');
      checkError(
        t,
        await api('PATCH', childPath, { json: { endTime: '2025-12-31T23:00:03Z' } }),
        400,
        'invalid_request',
        {
          details: { field: 'endTime', reason: 'cannot change: the span already ended at 2025-12-31T23:00:02.000Z' },
        },
      );
      checkError(t, await api('PATCH', childPath, { json: { status: 'error' } }), 400, 'invalid_request', {
        details: { field: 'status', reason: 'cannot change from ok to error: the span already ended' },
      });
      t.match(await getObservation(db, 'default', child.body.id), {
        endTime: '2025-12-31T23:00:02.000Z',
        status: 'ok',
        output: 'amended',
      });

      const rootEnded = await api('PATCH', `/spans/${root.body.id}`, { json: { output: [1, 2] } });
      t.equal(rootEnded.status, 200);
      t.match(
        rootEnded.body,
        { status: 'ok', output: [1, 2], endTime: ISO_MS },
        'endTime defaults to now and status to ok',
      );
      t.ok(Date.parse(rootEnded.body.endTime) >= Date.parse(root.body.startTime));
      const failed = await api('PATCH', `/spans/${explicitTop.body.id}`, { json: { status: 'error', output: null } });
      t.match(failed.body, { status: 'error', output: null, endTime: ISO_MS });

      for (const [json, field, reason] of [
        [{}, undefined, 'must set at least one of endTime, status, output'],
        [{ status: 'done' }, 'status', 'must be one of ok, error'],
        [{ endTime: 'soon' }, 'endTime', 'must be an ISO 8601 date-time with a time zone, e.g. 2026-01-31T12:00:00Z'],
        [{ name: 'x' }, 'name', 'is not a known field'],
      ] as const) {
        checkError(t, await api('PATCH', `/spans/${foreign.body.id}`, { json }), 400, 'invalid_request', {
          details: field ? { field, reason } : { reason },
        });
      }
      checkError(t, await api('PATCH', '/spans/no-such-span', { json: { status: 'ok' } }), 404, 'not_found', {
        details: { resource: 'span', id: 'no-such-span' },
      });
      const theirSpan = await api('POST', `/traces/${theirs.id}/spans`, {
        auth: bearer(listsKey),
        json: { name: 'theirs' },
      });
      checkError(t, await api('PATCH', `/spans/${theirSpan.body.id}`, { json: { status: 'ok' } }), 404, 'not_found');

      const read = await api('GET', `/traces/${trace.id}`);
      t.equal(read.status, 200);
      t.same(
        read.body.spans.map((s: { id: string }) => s.id).sort(),
        [root.body.id, child.body.id, explicitTop.body.id].sort(),
        'the trace lists its spans',
      );
      t.same(
        read.body.spans[0],
        { ...child.body, endTime: '2025-12-31T23:00:02.000Z', status: 'ok', output: 'amended' },
        'by start time',
      );
    });

    t.test('GET /v1/traces: paging bounds, hasMore, filters by status, agent and dates', async (t) => {
      await addAgent(db, {
        id: 'agent-planner',
        projectId: 'lists',
        name: 'planner',
        version: '1.2',
        framework: 'langgraph',
        model: 'gpt-4o',
      });
      await addAgent(db, { id: 'agent-writer', projectId: 'lists', name: 'writer' });
      // Other tests may add traces to `lists` now; these are all in 2025.
      await insertTraces(db, LIST_TRACES);
      await insertObservations(db, [
        {
          projectId: 'lists',
          id: 'l1-gen',
          traceId: 'l1',
          type: 'GENERATION',
          startTime: '2025-03-01T10:00:00.100Z',
          totalTokens: 30,
          totalCost: 0.002,
        },
        {
          projectId: 'lists',
          id: 'l1-span',
          traceId: 'l1',
          type: 'SPAN',
          startTime: '2025-03-01T10:00:00.000Z',
          totalTokens: 1000,
        },
      ]);
      const list = (query: string) => api('GET', `/traces?${query}`, { auth: bearer(listsKey) });
      const in2025 = 'startDate=2025-01-01&endDate=2025-12-31';

      const all = await list(in2025);
      t.equal(all.status, 200);
      checkCommonHeaders(t, all);
      t.same(idsOf(all), ['l5', 'l4', 'l3', 'l2', 'l1'], 'newest first');
      t.same(all.body.pagination, { total: 5, limit: 100, offset: 0, hasMore: false });
      t.same(
        all.body.data[4],
        {
          id: 'l1',
          name: 'one',
          startTime: '2025-03-01T10:00:00.000Z',
          endTime: '2025-03-01T10:00:01.500Z',
          duration: 1500,
          status: 'completed',
          input: 'q1',
          output: 'a1',
          tokens: 30,
          cost: 0.002,
          metadata: { n: 1 },
          tags: { env: 'prod' },
        },
        'a listed trace has no spans; tokens and cost sum its generations',
      );
      t.equal(all.body.data[3].duration, null, 'in progress: no duration');

      const pages = [];
      for (const offset of [0, 2, 4, 6]) pages.push(await list(`${in2025}&limit=2&offset=${offset}`));
      t.same(pages.map(idsOf), [['l5', 'l4'], ['l3', 'l2'], ['l1'], []]);
      t.same(
        pages.map((p) => p.body.pagination),
        [
          { total: 5, limit: 2, offset: 0, hasMore: true },
          { total: 5, limit: 2, offset: 2, hasMore: true },
          { total: 5, limit: 2, offset: 4, hasMore: false },
          { total: 5, limit: 2, offset: 6, hasMore: false },
        ],
      );

      const max = await list('limit=1000');
      t.equal(max.status, 200, 'limit 1000 is accepted');
      t.equal(max.body.pagination.limit, 1000);
      t.ok(max.body.data.length >= 5);
      const byDefault = await list('');
      t.equal(byDefault.body.pagination.limit, 100, 'limit defaults to 100');
      t.equal(byDefault.body.pagination.offset, 0, 'offset defaults to 0');
      const bad: [string, string, string][] = [
        ['limit=1001', 'limit', 'must be at most 1000'],
        ['limit=0', 'limit', 'must be at least 1'],
        ['limit=abc', 'limit', 'must be an integer'],
        ['limit=2.5', 'limit', 'must be an integer'],
        ['limit=1&limit=2', 'limit', 'must be an integer'],
        ['offset=-1', 'offset', 'must be at least 0'],
        ['offset=x', 'offset', 'must be an integer'],
        ['status=done', 'status', 'must be one of in_progress, completed, error'],
        ['agent=', 'agent', 'must not be empty'],
        ['startDate=2025-02-30', 'startDate', 'must be an ISO 8601 date (YYYY-MM-DD) or date-time with a time zone'],
        [
          'startDate=2025-03-01T10:00:00',
          'startDate',
          'must be an ISO 8601 date (YYYY-MM-DD) or date-time with a time zone',
        ],
        ['endDate=March', 'endDate', 'must be an ISO 8601 date (YYYY-MM-DD) or date-time with a time zone'],
        ['startDate=2025-03-02&endDate=2025-03-01', 'endDate', 'must not be before startDate'],
        ['startDate=2025-03-02T00:00:00.001Z&endDate=2025-03-02T00:00:00Z', 'endDate', 'must not be before startDate'],
        ['sort=name', 'sort', 'is not a known field'],
      ];
      for (const [query, field, reason] of bad) {
        t.comment(query);
        checkError(t, await list(query), 400, 'invalid_request', { details: { field, reason, location: 'query' } });
      }

      const filtered: [string, string[]][] = [
        [`${in2025}&status=completed`, ['l5', 'l4', 'l1']],
        [`${in2025}&status=in_progress`, ['l2']],
        [`${in2025}&status=error`, ['l3']],
        [`${in2025}&agent=planner`, ['l3', 'l1']],
        [`${in2025}&agent=writer`, ['l5', 'l2']],
        [`${in2025}&agent=nobody`, []],
        [`${in2025}&agent=planner&status=completed`, ['l1']],
        ['startDate=2025-03-02&endDate=2025-12-31', ['l5', 'l4', 'l3']],
        ['startDate=2025-01-01&endDate=2025-03-01', ['l2', 'l1']],
        ['startDate=2025-03-01&endDate=2025-03-01', ['l2', 'l1']],
        ['startDate=2025-03-02T00:00:00Z&endDate=2025-03-02T12:00:00Z', ['l4', 'l3']],
        ['startDate=2025-03-02T00:00:00Z&endDate=2025-03-02T11:59:59.999Z', ['l3']],
        ['startDate=2025-03-01T10:00:00.001Z&endDate=2025-03-01T23:59:59.999%2B00:00', ['l2']],
        ['startDate=2025-03-02T01:00:00%2B01:00&endDate=2025-03-02', ['l4', 'l3']],
      ];
      for (const [query, ids] of filtered) {
        const r = await list(query);
        t.same(idsOf(r), ids, query);
        t.equal(r.body.pagination.total, ids.length, `${query}: total`);
      }
      t.same(idsOf(await api('GET', '/traces?agent=planner')), [], "the default project's key sees none of them");
    });

    t.test('GET /v1/agents lists the agents of the key project', async (t) => {
      await addAgent(db, {
        id: 'agent-reviewer',
        projectId: 'default',
        name: 'reviewer',
        version: '2',
        framework: 'crewai',
        model: 'claude',
        status: 'suspended',
      });
      const r = await api('GET', '/agents', { auth: bearer(listsKey) });
      t.equal(r.status, 200);
      checkCommonHeaders(t, r);
      t.same(Object.keys(r.body), ['data']);
      t.same(
        r.body.data.map((a: { name: string }) => a.name),
        ['planner', 'writer'],
      );
      t.same(Object.keys(r.body.data[0]), ['id', 'name', 'version', 'framework', 'model', 'status', 'createdAt']);
      t.match(r.body.data[0], {
        id: 'agent-planner',
        name: 'planner',
        version: '1.2',
        framework: 'langgraph',
        model: 'gpt-4o',
        status: 'active',
        createdAt: ISO_MS,
      });
      const own = await api('GET', '/agents');
      t.same(
        own.body.data.map((a: { id: string }) => a.id),
        ['agent-reviewer'],
      );
      t.match(own.body.data[0], { status: 'suspended', version: '2' });
    });

    t.test('a gateway request is readable as a trace with one span per provider attempt', async (t) => {
      upstream.queue.push({ type: 'error', status: 500 });
      const res = await postJson(svc.gatewayUrl, '/v1/chat/completions', chatBody({ model: 'demo' }), {
        authorization: `Bearer ${TEST_KEY}`,
      });
      t.equal(res.status, 200);
      await res.arrayBuffer();
      const id = res.headers.get('x-svc-request-id')!;
      t.ok(id, 'the gateway names the trace');
      let r = await api('GET', `/traces/${id}`);
      for (let waited = 0; waited < 5000 && (r.status !== 200 || r.body.spans.length < 2); waited += 50) {
        await sleep(50);
        r = await api('GET', `/traces/${id}`);
      }
      t.equal(r.status, 200, 'the trace arrived');
      t.match(r.body, { id, name: 'chat.completions', status: 'completed', endTime: ISO_MS, duration: Number });
      t.ok(r.body.tokens > 0, 'tokens counted');
      t.equal(r.body.tokens, 15, "the upstream's usage");
      t.equal(r.body.spans.length, 2, 'one span per provider attempt');
      t.match(r.body.spans[0], {
        type: 'GENERATION',
        parentId: null,
        status: 'retryable',
        attributes: { 'gateway.provider_status': 500 },
      });
      t.match(r.body.spans[1], {
        type: 'GENERATION',
        parentId: null,
        status: 'ok',
        usage: { input: 10, output: 5, total: 15 },
      });
      t.not(
        r.body.spans[0].attributes['gateway.deployment'],
        r.body.spans[1].attributes['gateway.deployment'],
        'the retry used the other deployment',
      );
      const listed = await api('GET', '/traces?status=completed&limit=1000');
      t.ok(idsOf(listed).includes(id), 'and it is listed');
    });

    t.test(
      'trace input and output are strings on /v1 (JSON text for structured values); /api/public and the dashboard keep them structured',
      async (t) => {
        const res = await postJson(svc.gatewayUrl, '/v1/chat/completions', chatBody({ model: 'demo' }), {
          authorization: `Bearer ${TEST_KEY}`,
        });
        t.equal(res.status, 200);
        await res.arrayBuffer();
        const gatewayId = res.headers.get('x-svc-request-id')!;
        const ingested = await fetch(`${svc.adminUrl}/api/public/ingestion`, {
          method: 'POST',
          headers: { authorization: basic(key.publicKey, key.secretKey), 'content-type': 'application/json' },
          body: JSON.stringify({
            batch: [
              {
                id: 'ev-structured',
                type: 'trace-create',
                timestamp: new Date().toISOString(),
                body: { id: 'tr-structured', name: 'ingested', input: { question: 'q', n: 2 }, output: 'plain text' },
              },
              {
                id: 'ev-span',
                type: 'span-create',
                timestamp: new Date().toISOString(),
                body: { id: 'sp-structured', traceId: 'tr-structured', name: 'step', output: { rows: 3 } },
              },
            ],
          }),
        });
        t.equal(ingested.status, 207);
        let one = await api('GET', `/traces/${gatewayId}`);
        for (let waited = 0; waited < 5000 && (one.status !== 200 || one.body.spans.length === 0); waited += 50) {
          await sleep(50);
          one = await api('GET', `/traces/${gatewayId}`);
        }
        t.equal(one.status, 200, 'the gateway trace arrived');
        t.type(one.body.input, 'string');
        t.type(one.body.output, 'string');
        t.same(JSON.parse(one.body.input), [{ role: 'user', content: 'Hello' }], 'the messages, as JSON text');
        t.match(
          JSON.parse(one.body.output),
          { role: 'assistant', content: 'Hello from fake' },
          'the answer, as JSON text',
        );

        const ingestedTrace = await api('GET', '/traces/tr-structured');
        t.type(ingestedTrace.body.input, 'string');
        t.same(
          JSON.parse(ingestedTrace.body.input),
          { question: 'q', n: 2 },
          'an object sent as trace input is JSON text',
        );
        t.equal(ingestedTrace.body.output, 'plain text', 'a string stays the string');
        t.same(
          ingestedTrace.body.spans.map((x: { output: unknown }) => x.output),
          [{ rows: 3 }],
          'span output stays any JSON value',
        );

        const listed = (await api('GET', '/traces?limit=1000')).body.data as {
          id: string;
          input: unknown;
          output: unknown;
        }[];
        t.same(
          listed.find((x) => x.id === gatewayId),
          { ...listed.find((x) => x.id === gatewayId), input: one.body.input, output: one.body.output },
          'the list has the same strings',
        );
        t.match(
          listed.find((x) => x.id === 'tr-structured'),
          { input: ingestedTrace.body.input, output: 'plain text' },
        );

        const publicTrace = await fetch(`${svc.adminUrl}/api/public/traces/${gatewayId}`, {
          headers: { authorization: basic(key.publicKey, key.secretKey) },
        });
        t.same(
          (await publicTrace.json()).input,
          [{ role: 'user', content: 'Hello' }],
          '/api/public keeps the structured value (Langfuse clients expect it)',
        );
        const publicIngested = await fetch(`${svc.adminUrl}/api/public/traces/tr-structured`, {
          headers: { authorization: basic(key.publicKey, key.secretKey) },
        });
        t.same((await publicIngested.json()).input, { question: 'q', n: 2 });

        const owner = await signIn(svc, 'owner@localhost', svc.service.firstOwner!.password);
        const dashboard = await owner.call('GET', `/projects/default/traces/${gatewayId}`);
        t.same(dashboard.body.input, [{ role: 'user', content: 'Hello' }], 'the dashboard keeps the structured value');
        t.match(dashboard.body.output, { role: 'assistant', content: 'Hello from fake' });
      },
    );
  });
}
