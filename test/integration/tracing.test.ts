// Gateway tracing (docs/api.md "Errors", traced column; docs/decisions.md "Gateway traces", "Caller context headers"):
// what one request leaves in the store, read back from the database. The store-backed part runs once per backend.
import t, { type Test } from 'tap';
import { systemClock } from '../../src/platform/clock.ts';
import type { Queryable } from '../../src/platform/store/database.ts';
import { getTrace, type StoredTrace } from '../../src/platform/store/repos/traces.ts';
import { listObservationsOfTrace } from '../../src/platform/store/repos/observations.ts';
import { startFakeOpenAI, type Behaviour, type FakeOpenAI } from '../helpers/fake-openai.ts';
import {
  baseConfig,
  chatBody,
  openaiDeployment,
  postJson,
  startTestService,
  TEST_KEY,
  type TestService,
} from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';
import { waitFor } from '../helpers/wait-for.ts';

const PROJECT = 'default';
const CREATED = '2026-11-21T00:00:00Z';
// Round prices make the expected costs exact: USD per token = 1e-6 input, 2e-6 output.
const PRICE = { input_per_mtok: 1, output_per_mtok: 2 };
const key = (name: string) => `sk-test-${name}-0123456789abcdef`;
const TRACEPARENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT_SPAN = '00f067aa0ba902b7';

interface Attempt {
  d: string;
  o: string;
  ms: number;
  st?: number;
  why?: string;
}

function requestId(res: Response): string {
  const id = res.headers.get('x-svc-request-id');
  if (!id) throw new Error('no x-svc-request-id');
  return id;
}

const attemptsOf = (res: Response): Attempt[] => JSON.parse(res.headers.get('x-svc-attempts') ?? '[]');

function send(
  url: string,
  path: string,
  body: unknown,
  apiKey: string | undefined = TEST_KEY,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const chat = (
  url: string,
  body: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  apiKey: string = TEST_KEY,
) => send(url, '/v1/chat/completions', chatBody({ model: 'g', ...body }), apiKey, headers);

/** The trace, once the writer has stored it. */
function traceOf(db: Queryable, id: string, ms = 15_000): Promise<StoredTrace> {
  return waitFor(`trace ${id} stored`, () => getTrace(db, PROJECT, id), ms);
}

/** The data events of an SSE body, [DONE] left out. */
function sseEvents(text: string): any[] {
  return text
    .split('\n\n')
    .map((frame) => frame.trim())
    .filter((frame) => frame.startsWith('data: ') && frame !== 'data: [DONE]')
    .map((frame) => JSON.parse(frame.slice('data: '.length)));
}

function near(t: Test, actual: number, expected: number, message: string) {
  t.ok(Math.abs(actual - expected) < 1e-12, `${message} (${actual} vs ${expected})`);
}

interface Gateway {
  svc: TestService;
  url: string;
  db: Queryable;
  up: FakeOpenAI;
  /** Stops the injected clock (until thaw()), so advance() alone moves it. */
  freeze(): void;
  thaw(): void;
  /** Moves the injected clock forward. */
  advance(ms: number): void;
  /** A served request whose trace is stored: every trace handed over before it is stored too (one FIFO writer). */
  barrier(): Promise<void>;
  /** Trace ids stored for a key alias and error code, oldest first. */
  tracesOf(alias: string, code: string): Promise<string[]>;
  /** True when the trace is not stored, checked after a barrier. */
  untraced(id: string): Promise<boolean>;
}

async function fake(t: Test, fallback?: Behaviour): Promise<FakeOpenAI> {
  const f = await startFakeOpenAI(fallback);
  t.teardown(() => f.close());
  return f;
}

async function gateway(
  t: Test,
  backend: 'pglite' | 'postgres',
  tracing: Record<string, unknown> = {},
): Promise<Gateway> {
  const up = await fake(t);
  const down = await fake(t, { type: 'error', status: 503 });
  let skew = 0;
  let frozen: number | undefined;
  const clock = { now: () => frozen ?? Date.now() + skew, sleep: systemClock.sleep };
  const svc = await startTestService(
    t,
    baseConfig({
      model_groups: [
        {
          name: 'g',
          created_at: CREATED,
          routing: { retries: 2, bench_ms: 0 },
          deployments: [
            openaiDeployment('a', up.url, { price: PRICE }),
            openaiDeployment('b', up.url, { price: PRICE }),
          ],
        },
        {
          name: 'failing',
          created_at: CREATED,
          routing: { retries: 1, bench_ms: 0, max_backoff_ms: 10 },
          deployments: [openaiDeployment('dead', down.url, { price: PRICE })],
        },
      ],
      agents: [
        {
          id: 'agent-1',
          project: PROJECT,
          name: 'helper',
          version: '1.0',
          framework: 'custom',
          model: 'model-a',
          status: 'active',
        },
      ],
      keys: [
        { alias: 'test', key: TEST_KEY, project: PROJECT, model_groups: ['g', 'failing'], agent: 'agent-1' },
        { alias: 'blocked', key: key('blocked'), project: PROJECT, model_groups: ['g'], blocked: true },
        { alias: 'blocked2', key: key('blocked2'), project: PROJECT, model_groups: ['g'], blocked: true },
        {
          alias: 'expired',
          key: key('expired'),
          project: PROJECT,
          model_groups: ['g'],
          expires_at: new Date(Date.now() - 60_000).toISOString(),
        },
        {
          alias: 'faraway',
          key: key('faraway'),
          project: PROJECT,
          model_groups: ['g'],
          allowed_networks: ['10.0.0.0/8'],
        },
      ],
      plugins: [
        { use: 'auth' },
        { use: 'router', config: { backoff_base_ms: 1 } },
        { use: 'tracing', config: tracing },
      ],
    }),
    { backend, clock },
  );
  const db = svc.service.db;
  const g: Gateway = {
    svc,
    url: svc.gatewayUrl,
    db,
    up,
    freeze() {
      frozen = Date.now() + skew;
    },
    thaw() {
      if (frozen !== undefined) skew = frozen - Date.now();
      frozen = undefined;
    },
    advance(ms) {
      if (frozen !== undefined) frozen += ms;
      else skew += ms;
    },
    async barrier() {
      const res = await chat(svc.gatewayUrl, { messages: [{ role: 'user', content: 'barrier' }] });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`barrier request failed: ${res.status}`);
      await traceOf(db, requestId(res));
    },
    async tracesOf(alias, code) {
      const r = await db.query<{ id: string }>(
        `SELECT id FROM traces WHERE project_id = $1 AND metadata->>'gateway.key' = $2 AND error_code = $3 ORDER BY start_time, id`,
        [PROJECT, alias, code],
      );
      return r.rows.map((row) => row.id);
    },
    async untraced(id) {
      await g.barrier();
      return (await getTrace(db, PROJECT, id)) === undefined;
    },
  };
  return g;
}

for (const backend of STORE_BACKENDS) {
  t.test(`${backend}: gateway traces`, async (t) => {
    const g = await gateway(t, backend);
    const { db, up } = g;

    t.test('non-streamed chat: the trace, its facts and one generation per attempt', async (t) => {
      up.queue.push(
        { type: 'error', status: 500 },
        {
          type: 'delay',
          ms: 60,
          then: { type: 'ok', content: 'Hi there', usage: { prompt_tokens: 10, completion_tokens: 5 } },
        },
      );
      const before = Date.now();
      const messages = [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
      ];
      const res = await chat(g.url, { messages, temperature: 0.2 });
      const after = Date.now();
      t.equal(res.status, 200);
      const body = (await res.json()) as any;
      const id = requestId(res);
      const attempts = attemptsOf(res);
      t.match(attempts, [{ o: 'retryable', st: 500 }, { o: 'ok' }], 'the client saw a retry');

      const trace = await traceOf(db, id);
      t.equal(trace.id, id, 'trace id = x-svc-request-id');
      t.match(trace, {
        name: 'chat.completions',
        status: 'completed',
        source: 'gateway',
        input: messages,
        output: { role: 'assistant', content: 'Hi there', finish_reason: 'stop' },
        modelGroup: 'g',
        deployment: res.headers.get('x-svc-deployment'),
        agentId: 'agent-1',
        agentName: 'helper',
        statusCode: 200,
        errorCode: null,
        cacheHit: false,
        userId: null,
        sessionId: null,
        parentTraceId: null,
        metadata: {
          'gateway.route': '/v1/chat/completions',
          'gateway.status': 200,
          'gateway.key': 'test',
          'gateway.stream': false,
        },
      });
      t.equal(trace.deployment, attempts[1].d, 'the deployment that served');
      t.notOk('gateway.refusal' in trace.metadata, 'a served request is no refusal');
      t.ok(
        Date.parse(trace.startTime) >= before && Date.parse(trace.startTime) <= after,
        'starts when the request arrived',
      );
      t.ok(Date.parse(trace.endTime!) <= after, 'ends when the response ended');
      t.equal(trace.durationMs, Date.parse(trace.endTime!) - Date.parse(trace.startTime));
      t.ok(trace.durationMs! >= 60, `duration covers the provider's 60 ms (${trace.durationMs} ms)`);
      t.equal(trace.tokens, body.usage.total_tokens, 'tokens = response usage');
      t.equal(trace.tokens, 15);
      near(t, trace.cost, Number(res.headers.get('x-svc-cost')), 'cost = x-svc-cost');
      near(t, trace.cost, (10 * 1 + 5 * 2) / 1e6, 'cost from usage and price');

      const obs = await listObservationsOfTrace(db, PROJECT, id);
      t.equal(obs.length, 2, 'one generation per attempt');
      t.match(obs[0], {
        id: `${id}.1`,
        traceId: id,
        type: 'GENERATION',
        name: `attempt 1: ${attempts[0].d}`,
        status: 'retryable',
        level: 'WARNING',
        statusMessage: 'fake error 500',
        model: `model-${attempts[0].d}`,
        attributes: {
          'gateway.deployment': attempts[0].d,
          'gateway.outcome': 'retryable',
          'gateway.provider': 'openai',
          'gateway.provider_status': 500,
        },
        modelParameters: { temperature: 0.2 },
        totalTokens: 0,
        totalCost: 0,
      });
      t.same(obs[0].usageDetails, {}, 'a failed attempt has no usage');
      t.match(obs[1], {
        id: `${id}.2`,
        name: `attempt 2: ${attempts[1].d}`,
        status: 'ok',
        level: 'DEFAULT',
        statusMessage: null,
        model: `model-${attempts[1].d}`,
        attributes: { 'gateway.deployment': attempts[1].d, 'gateway.outcome': 'ok' },
        usageDetails: { input: 10, output: 5, total: 15 },
        totalTokens: 15,
      });
      near(t, obs[1].totalCost, trace.cost, 'the served attempt carries the cost');
      t.ok(
        Date.parse(obs[1].endTime!) - Date.parse(obs[1].startTime) >= 60,
        'the served attempt lasted the provider delay',
      );
    });

    t.test('streamed chat: the answer rebuilt from chunks, usage from the final usage chunk', async (t) => {
      up.queue.push({ type: 'stream', pieces: ['Hel', 'lo', ' there'] });
      const res = await chat(g.url, { stream: true, stream_options: { include_usage: true } });
      t.equal(res.status, 200);
      t.equal(res.headers.get('x-svc-cost-estimated'), 'true');
      const events = sseEvents(await res.text());
      const usage = events.at(-1).usage;
      t.match(usage, { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 }, 'the client got the usage chunk');
      const id = requestId(res);
      const trace = await traceOf(db, id);
      t.match(trace, {
        status: 'completed',
        output: { role: 'assistant', content: 'Hello there', finish_reason: 'stop' },
        metadata: { 'gateway.stream': true, 'gateway.cost_estimated_at_admission': true },
        deployment: res.headers.get('x-svc-deployment'),
      });
      t.notOk('truncated' in (trace.output as object), 'not cut');
      t.equal(trace.tokens, usage.total_tokens, 'tokens from the usage chunk');
      near(t, trace.cost, (12 * 1 + 3 * 2) / 1e6, 'cost from real usage, not the admission estimate');
      const obs = await listObservationsOfTrace(db, PROJECT, id);
      t.equal(obs.length, 1);
      t.match(obs[0], { status: 'ok', usageDetails: { input: 12, output: 3, total: 15 }, totalTokens: 15 });
      t.ok(obs[0].completionStartTime !== null, 'first chunk time recorded');
      t.ok(Date.parse(obs[0].completionStartTime!) <= Date.parse(obs[0].endTime!), 'first chunk before the end');

      // The attempt record (x-svc-attempts, sent with the first chunk) measures the time to that chunk; the trace's
      // attempt lasts as long as its generation, to the end of the stream, and keeps the first chunk apart.
      up.queue.push({ type: 'stream', pieces: ['slow', ' and', ' steady'], gapMs: 40 });
      const slow = await chat(g.url, { stream: true });
      await slow.text();
      const [header] = JSON.parse(slow.headers.get('x-svc-attempts')!);
      const [attempt] = await listObservationsOfTrace(db, PROJECT, (await traceOf(db, requestId(slow))).id);
      const lasted = Date.parse(attempt.endTime!) - Date.parse(attempt.startTime);
      t.ok(lasted >= 120, `the generation lasted the stream (${lasted} ms)`);
      t.equal(attempt.attributes!['gateway.duration_ms'], lasted, 'the attempt in the trace says as long as its span');
      t.equal(
        attempt.attributes!['gateway.first_chunk_ms'],
        header.ms,
        "the header's time to the first chunk is kept apart",
      );
      t.equal(Date.parse(attempt.completionStartTime!) - Date.parse(attempt.startTime), header.ms);

      // Without include_usage the client gets no usage chunk, but the gateway asked the provider for it.
      up.queue.push({ type: 'stream', pieces: ['a', 'b', 'c', 'd'] });
      const quiet = await chat(g.url, { stream: true });
      const quietEvents = sseEvents(await quiet.text());
      t.notOk(
        quietEvents.some((e) => e.usage),
        'no usage chunk for the client',
      );
      const quietTrace = await traceOf(db, requestId(quiet));
      t.equal(quietTrace.tokens, 16, 'usage still recorded (12 + 4)');
      t.match(quietTrace.output, { content: 'abcd' });
    });

    t.test('embeddings: input kept, output summarised without vectors', async (t) => {
      const res = await send(g.url, '/v1/embeddings', { model: 'g', input: ['first', 'second'] });
      t.equal(res.status, 200);
      const body = (await res.json()) as any;
      t.equal(body.data.length, 2);
      const trace = await traceOf(db, requestId(res));
      t.match(trace, {
        name: 'embeddings',
        status: 'completed',
        input: ['first', 'second'],
        modelGroup: 'g',
        metadata: { 'gateway.route': '/v1/embeddings' },
      });
      t.same(trace.output, { vectors: 2, dimensions: 3 });
      t.notMatch(JSON.stringify(trace), /0\.125/, 'no vector values stored');
      t.equal(trace.tokens, body.usage.total_tokens);
      near(t, trace.cost, 10 / 1e6, 'priced on input tokens');
    });

    t.test('caller context headers', async (t) => {
      const res = await chat(
        g.url,
        {},
        {
          'svc-user-id': 'user-42',
          'svc-session-id': 'session-7',
          'svc-tags': 'a,team:x',
          'svc-metadata': JSON.stringify({
            feature: 'search',
            nested: { n: 1 },
            'gateway.key': 'spoofed',
            'gateway.refusal': 'all_deployments_failed',
            'gateway.client_aborted': true,
            'svc.ignored_headers': ['traceparent'],
          }),
          traceparent: `00-${TRACEPARENT_TRACE}-${TRACEPARENT_SPAN}-01`,
        },
      );
      t.equal(res.status, 200);
      const trace = await traceOf(db, requestId(res));
      t.equal(trace.userId, 'user-42');
      t.equal(trace.sessionId, 'session-7');
      t.same(trace.tags, { a: '', team: 'x' }, 'comma list: bare tag and key:value');
      t.match(trace.metadata, { feature: 'search', nested: { n: 1 } }, 'svc-metadata merged into metadata');
      t.equal(trace.metadata['gateway.key'], 'test', 'gateway facts win over caller metadata');
      t.notOk('gateway.refusal' in trace.metadata, 'a caller cannot make a served request look refused');
      t.notOk('gateway.client_aborted' in trace.metadata, 'or aborted');
      t.notOk('svc.ignored_headers' in trace.metadata, 'gateway.* and svc.* keys belong to the gateway');
      t.equal(trace.parentTraceId, TRACEPARENT_TRACE);
      t.equal(trace.parentSpanId, TRACEPARENT_SPAN);

      const endUser = await chat(g.url, { user: 'end-user-9' });
      t.equal(
        (await traceOf(db, requestId(endUser))).userId,
        'end-user-9',
        "OpenAI's user field names the user when no header does",
      );
      const both = await chat(g.url, { user: 'end-user-9' }, { 'svc-user-id': 'user-42' });
      t.equal((await traceOf(db, requestId(both))).userId, 'user-42', 'the header wins over the body');
      const tooLong = await chat(g.url, { user: 'u'.repeat(201) });
      t.equal(
        (await traceOf(db, requestId(tooLong))).userId,
        null,
        'a user field breaking the header rule is left out',
      );

      const json = await chat(g.url, {}, { 'svc-tags': JSON.stringify({ team: 'y', env: 'prod' }) });
      t.same((await traceOf(db, requestId(json))).tags, { team: 'y', env: 'prod' }, 'tags as a JSON object');

      const bad = await chat(
        g.url,
        {},
        {
          'svc-user-id': 'user-1',
          'svc-metadata': '{not json',
          traceparent: `00-${'0'.repeat(32)}-${TRACEPARENT_SPAN}-01`,
        },
      );
      t.equal(bad.status, 200, 'malformed caller headers never fail the request');
      const badTrace = await traceOf(db, requestId(bad));
      t.same(badTrace.metadata['svc.ignored_headers'], ['svc-metadata', 'traceparent'], 'and are named');
      t.equal(badTrace.userId, 'user-1', 'a good header beside them is kept');
      t.equal(badTrace.parentTraceId, null);
      t.notOk('feature' in badTrace.metadata);
    });

    t.test('model_not_allowed is traced with zero usage', async (t) => {
      const res = await chat(g.url, { model: 'nope' });
      t.equal(res.status, 403);
      const body = (await res.json()) as any;
      t.equal(body.error.code, 'model_not_allowed');
      const trace = await traceOf(db, requestId(res));
      t.match(trace, {
        status: 'error',
        statusCode: 403,
        errorCode: 'model_not_allowed',
        tokens: 0,
        cost: 0,
        agentId: 'agent-1',
        metadata: { 'gateway.error_code': 'model_not_allowed', 'gateway.status': 403 },
        output: { error: { code: 'model_not_allowed', message: body.error.message } },
      });
      t.same(await listObservationsOfTrace(db, PROJECT, trace.id), [], 'no provider attempt');
      const again = await chat(g.url, { model: 'nope' });
      t.ok(await traceOf(db, requestId(again)), 'not sampled: every one is traced');
    });

    t.test('invalid_api_key, invalid_request and invalid_json are not traced', async (t) => {
      const unknown = await chat(g.url, {}, {}, key('unknown'));
      t.equal(unknown.status, 401);
      const invalid = await send(g.url, '/v1/chat/completions', { model: 'g', messages: [] });
      t.equal(invalid.status, 400);
      t.equal(((await invalid.json()) as any).error.code, 'invalid_request');
      const notJson = await send(g.url, '/v1/chat/completions', '{"model":');
      t.equal(((await notJson.json()) as any).error.code, 'invalid_json');
      for (const [name, res] of [
        ['invalid_api_key', unknown],
        ['invalid_request', invalid],
        ['invalid_json', notJson],
      ] as const) {
        t.ok(await g.untraced(requestId(res)), `${name}: no trace`);
      }
    });

    t.test('sampled refusals: at most one trace per minute per key and reason', async (t) => {
      const cases = [
        { alias: 'blocked', status: 401, code: 'key_blocked' },
        { alias: 'expired', status: 401, code: 'key_expired' },
        { alias: 'faraway', status: 403, code: 'ip_not_allowed' },
      ];
      g.freeze();
      t.teardown(() => g.thaw());
      const firstIds: Record<string, string> = {};
      for (const c of cases) {
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) {
          const res = await chat(g.url, {}, {}, key(c.alias));
          t.equal(res.status, c.status, `${c.alias}: refused`);
          t.equal(((await res.json()) as any).error.code, c.code);
          ids.push(requestId(res));
        }
        await g.barrier();
        t.same(await g.tracesOf(c.alias, c.code), [ids[0]], `${c.code}: 3 refusals, 1 trace (the first)`);
        firstIds[c.alias] = ids[0];
        const trace = await traceOf(db, ids[0]);
        t.match(trace, {
          status: 'error',
          statusCode: c.status,
          errorCode: c.code,
          tokens: 0,
          cost: 0,
          metadata: { 'gateway.key': c.alias },
        });
        t.same(await listObservationsOfTrace(db, PROJECT, ids[0]), []);
      }

      const other = await chat(g.url, {}, {}, key('blocked2'));
      t.equal(other.status, 401);
      await g.barrier();
      t.same(
        await g.tracesOf('blocked2', 'key_blocked'),
        [requestId(other)],
        'another key with the same reason has its own window',
      );

      g.advance(59_999);
      for (const c of cases) await (await chat(g.url, {}, {}, key(c.alias))).arrayBuffer();
      await g.barrier();
      for (const c of cases)
        t.equal((await g.tracesOf(c.alias, c.code)).length, 1, `${c.code}: still one trace 59.999 s later`);

      g.advance(1);
      const later: Record<string, string> = {};
      for (const c of cases) {
        const res = await chat(g.url, {}, {}, key(c.alias));
        later[c.alias] = requestId(res);
        await (await chat(g.url, {}, {}, key(c.alias))).arrayBuffer();
      }
      await g.barrier();
      for (const c of cases)
        t.same(
          await g.tracesOf(c.alias, c.code),
          [firstIds[c.alias], later[c.alias]],
          `${c.code}: a second trace a minute later`,
        );
    });

    t.test(
      'all deployments failing: gateway.refusal = all_deployments_failed, one generation per attempt',
      async (t) => {
        const res = await chat(g.url, { model: 'failing' });
        t.equal(res.status, 503, 'the last provider error is passed on');
        const body = (await res.json()) as any;
        const attempts = attemptsOf(res);
        t.equal(attempts.length, 2, 'first try and one retry');
        const trace = await traceOf(db, requestId(res));
        t.match(trace, {
          status: 'error',
          statusCode: 503,
          errorCode: body.error.code ?? 'upstream_error',
          modelGroup: 'failing',
          tokens: 0,
          cost: 0,
          metadata: { 'gateway.refusal': 'all_deployments_failed', 'gateway.status': 503 },
        });
        const obs = await listObservationsOfTrace(db, PROJECT, trace.id);
        t.equal(obs.length, 2);
        for (const o of obs) {
          t.match(o, {
            status: 'retryable',
            level: 'WARNING',
            statusMessage: 'fake error 503',
            attributes: { 'gateway.deployment': 'dead', 'gateway.provider_status': 503 },
            totalTokens: 0,
          });
        }
      },
    );

    t.test('a provider error passed through is traced with its status and code', async (t) => {
      up.queue.push({
        type: 'error',
        status: 400,
        envelope: {
          error: { message: 'bad parameter', type: 'invalid_request_error', param: 'temperature', code: 'bad_param' },
        },
      });
      const res = await chat(g.url, { temperature: 9 });
      t.equal(res.status, 400);
      t.equal(((await res.json()) as any).error.code, 'bad_param');
      const trace = await traceOf(db, requestId(res));
      t.match(trace, {
        status: 'error',
        statusCode: 400,
        errorCode: 'bad_param',
        tokens: 0,
        output: { error: { code: 'bad_param' } },
      });
      t.notOk(
        'gateway.refusal' in trace.metadata,
        'one failed attempt that stops the request is not all_deployments_failed',
      );
      const obs = await listObservationsOfTrace(db, PROJECT, trace.id);
      t.equal(obs.length, 1);
      t.match(obs[0], {
        status: 'failed',
        level: 'ERROR',
        statusMessage: 'bad parameter',
        attributes: { 'gateway.provider_status': 400 },
      });
    });

    t.test('a stream that breaks after starting is traced as an error', async (t) => {
      up.queue.push({ type: 'stream', pieces: ['one', 'two', 'three'], cutAfter: 2 });
      const res = await chat(g.url, { stream: true });
      t.equal(res.status, 200);
      const events = sseEvents(await res.text());
      t.equal(events.at(-1).error?.code, 'upstream_stream_error');
      const seen = events.map((e) => e.choices?.[0]?.delta?.content ?? '').join('');
      const trace = await traceOf(db, requestId(res));
      t.match(trace, {
        status: 'error',
        statusCode: 200,
        errorCode: 'upstream_stream_error',
        metadata: { 'gateway.error_code': 'upstream_stream_error' },
      });
      t.same(trace.output, { role: 'assistant', content: seen }, 'the answer as far as the client got it');
    });

    t.test('a client that disconnects mid-stream is still traced', async (t) => {
      const pieces = Array.from({ length: 20 }, (_, i) => `w${i} `);
      up.queue.push({ type: 'stream', pieces, gapMs: 15 });
      const controller = new AbortController();
      const res = await fetch(`${g.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` },
        body: JSON.stringify(chatBody({ model: 'g', stream: true })),
        signal: controller.signal,
      });
      const id = requestId(res);
      const reader = res.body!.getReader();
      t.notOk((await reader.read()).done, 'the first bytes arrived');
      controller.abort();
      await reader.cancel().catch(() => {});
      const trace = await traceOf(db, id);
      t.equal(trace.metadata['gateway.client_aborted'], true);
      t.equal(trace.statusCode, 200);
      t.match(trace.output, { role: 'assistant', content: pieces.join('') }, 'the gateway read the answer to its end');
      t.equal(trace.tokens, 12 + pieces.length, 'usage settled after the client left');
    });

    t.test('U+0000 and a lone surrogate in a message do not block tracing', async (t) => {
      const res = await chat(g.url, { messages: [{ role: 'user', content: 'nul\u0000 and \ud83d' }] });
      t.equal(res.status, 200);
      const trace = await traceOf(db, requestId(res));
      t.same(trace.input, [{ role: 'user', content: 'nul and \ufffd' }], 'stored without the characters jsonb refuses');
      await g.barrier();
      const stats = g.svc.service.traceWriter!.snapshot();
      t.equal(stats.write_failures, 0, 'no batch failed');
      t.equal(stats.dropped, 0);
    });
  });
}

t.test('record_content: false keeps messages and answers out, usage and cost in', async (t) => {
  const g = await gateway(t, 'postgres', { record_content: false });
  const res = await chat(g.url, { messages: [{ role: 'user', content: 'secret question' }] });
  t.equal(res.status, 200);
  const trace = await traceOf(g.db, requestId(res));
  t.equal(trace.input, null);
  t.equal(trace.output, null);
  t.equal(trace.tokens, 15);
  near(t, trace.cost, Number(res.headers.get('x-svc-cost')), 'cost = x-svc-cost');
  t.equal(trace.status, 'completed');

  g.up.queue.push({ type: 'stream', pieces: ['secret', ' answer'] });
  const streamed = await chat(g.url, { stream: true });
  await streamed.text();
  const streamedTrace = await traceOf(g.db, requestId(streamed));
  t.equal(streamedTrace.input, null);
  t.equal(streamedTrace.output, null, 'the streamed answer is not rebuilt');
  t.equal(streamedTrace.tokens, 14);

  const refused = await chat(g.url, { model: 'nope' });
  const refusedTrace = await traceOf(g.db, requestId(refused));
  t.equal(refusedTrace.input, null);
  t.match(refusedTrace.output, { error: { code: 'model_not_allowed' } }, 'an error keeps its code and message');

  const obs = await listObservationsOfTrace(g.db, PROJECT, trace.id);
  t.match(obs, [{ status: 'ok', usageDetails: { input: 10, output: 5, total: 15 } }]);
  t.notMatch(JSON.stringify([trace, streamedTrace, obs]), /secret/, 'no content anywhere in the rows');
});
