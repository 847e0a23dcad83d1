// The tracing plugin called directly, with an in-memory trace sink, in-memory counters and a fake clock: which
// requests become traces, refusals sampled once per minute per key and reason, and a cache hit read from the source.
import t, { type Test } from 'tap';
import authPlugin from '../../../plugins/auth/index.ts';
import tracingPlugin from '../../../plugins/tracing/index.ts';
import { CountersUnavailableError, GatewayError, type PluginHooks } from '../../../src/plugin-api/index.ts';
import { makeCtx, pluginServices, setupPlugin, type PluginServices, type TestCtx } from '../../helpers/plugin.ts';

const key = (name: string) => `sk-test-${name}-0123456789abcdef`;
const grant = (alias: string, extra: Record<string, unknown> = {}) => ({
  alias,
  key: key(alias),
  project: 'default',
  model_groups: ['demo'],
  ...extra,
});

interface Tracing {
  services: PluginServices;
  hooks: PluginHooks;
  /** A request by the key through auth, ended by `end` (a status and maybe an error), then tracing's onLog. */
  request(name: string, end?: { status: number; error?: unknown; errorCode?: string | null }): Promise<TestCtx>;
  /** Lets the sampler's store call settle. */
  settled(): Promise<void>;
}

async function tracing(t: Test): Promise<Tracing> {
  const services = pluginServices(t, {
    config: {
      keys: [
        grant('ok'),
        grant('blocked', { blocked: true }),
        grant('blocked2', { blocked: true }),
        grant('expired', { expires_at: '2000-01-01T00:00:00Z' }),
        grant('faraway', { allowed_networks: ['10.0.0.0/8'] }),
      ],
    },
  });
  const auth = await setupPlugin(authPlugin, services);
  const hooks = await setupPlugin(tracingPlugin, services);
  return {
    services,
    hooks,
    async request(name, end = { status: 200 }) {
      const ctx = makeCtx({ headers: { authorization: `Bearer ${key(name)}` }, clock: services.clock });
      try {
        await auth.onRequest!(ctx);
        ctx.status = end.status;
        ctx.error = end.error;
        ctx.errorCode = end.errorCode ?? null;
      } catch (err) {
        ctx.error = err;
        ctx.status = (err as GatewayError).status;
        ctx.errorCode = (err as GatewayError).code;
      }
      ctx.source ??= 'gateway';
      hooks.onLog!(ctx);
      return ctx;
    },
    settled: () => new Promise((r) => setImmediate(r)),
  };
}

const traced = (tr: Tracing) => tr.services.traced.map((item) => item.trace.id);

t.test('sampled refusals: at most one trace per minute per key and reason', async (t) => {
  const tr = await tracing(t);
  const cases = [
    { alias: 'blocked', code: 'key_blocked' },
    { alias: 'expired', code: 'key_expired' },
    { alias: 'faraway', code: 'ip_not_allowed' },
  ];
  const first: Record<string, string> = {};
  for (const c of cases) {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const ctx = await tr.request(c.alias);
      t.equal(ctx.errorCode, c.code, `${c.alias}: refused`);
      ids.push(ctx.id);
    }
    await tr.settled();
    const mine = tr.services.traced.filter((item) => item.trace.errorCode === c.code).map((item) => item.trace.id);
    t.same(mine, [ids[0]], `${c.code}: 3 refusals, 1 trace (the first)`);
    first[c.alias] = ids[0];
    t.match(tr.services.traced.at(-1)!.trace, {
      status: 'error',
      errorCode: c.code,
      metadata: { 'gateway.key': c.alias },
    });
    t.same(tr.services.traced.at(-1)!.observations, [], 'no generation: no provider was asked');
  }
  const other = await tr.request('blocked2');
  await tr.settled();
  t.equal(traced(tr).at(-1), other.id, 'another key with the same reason has its own window');

  const before = traced(tr).length;
  tr.services.clock.advance(59_999);
  for (const c of cases) await tr.request(c.alias);
  await tr.settled();
  t.equal(traced(tr).length, before, 'still one trace per key and reason 59.999 s later');
  tr.services.clock.advance(1);
  const later = [];
  for (const c of cases) later.push((await tr.request(c.alias)).id);
  await tr.settled();
  t.same(traced(tr).slice(before), later, 'a second trace a minute later');
});

t.test(
  'what is traced: served requests and traced refusals; never unknown callers, framing or unexpected failures',
  async (t) => {
    const tr = await tracing(t);
    const served = await tr.request('ok');
    t.same(traced(tr), [served.id], 'a served request is traced at once');
    t.equal(tr.services.traced[0].trace.cacheHit, false);

    const notAllowed = await tr.request('ok', {
      status: 403,
      error: new GatewayError('model_not_allowed', 'no'),
      errorCode: 'model_not_allowed',
    });
    t.equal(traced(tr).at(-1), notAllowed.id, 'a refusal outside the sampled ones is traced every time');

    await tr.request('nobody');
    await tr.request('ok', {
      status: 400,
      error: new GatewayError('invalid_request', 'bad'),
      errorCode: 'invalid_request',
    });
    await tr.request('ok', { status: 500, error: new Error('bug'), errorCode: null });
    await tr.settled();
    t.equal(traced(tr).length, 2, 'unknown key, invalid_request and an unexpected failure are not traced');

    const models = makeCtx({ route: 'models' });
    tr.hooks.onLog!(models);
    t.equal(traced(tr).length, 2, '/v1/models is not traced');
  },
);

t.test('a cache hit is known from the response source', async (t) => {
  const tr = await tracing(t);
  const ctx = makeCtx({ headers: { authorization: `Bearer ${key('ok')}` } });
  await (
    await setupPlugin(authPlugin, tr.services)
  ).onRequest!(ctx);
  ctx.status = 200;
  ctx.errorCode = null;
  ctx.source = 'cache';
  tr.hooks.onLog!(ctx);
  t.equal(tr.services.traced[0].trace.cacheHit, true);
});

t.test('sampling with the counters store unreachable: each process samples on its own', async (t) => {
  const tr = await tracing(t);
  tr.services.counters.claimMark = () => Promise.reject(new CountersUnavailableError('redis is down'));
  await tr.request('blocked');
  await tr.request('blocked');
  await tr.settled();
  t.equal(traced(tr).length, 1, 'still at most one a minute');
});
