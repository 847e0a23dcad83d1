// The rate-limit plugin called directly, with in-memory counters and a fake clock: requests and tokens per calendar
// minute, per key and per project, retry-after at the minute's end, reservation and settlement of tokens.
import t, { type Test } from 'tap';
import authPlugin from '../../../plugins/auth/index.ts';
import rateLimitPlugin from '../../../plugins/rate-limit/index.ts';
import { CountersUnavailableError, GatewayError, type PluginHooks, type Usage } from '../../../src/plugin-api/index.ts';
import { makeCtx, pluginServices, setupPlugin, type PluginServices, type TestCtx } from '../../helpers/plugin.ts';

const key = (name: string) => `sk-test-${name}-0123456789abcdef`;
/** Prompt estimate of one "Hello" message: 3 + (4 + 2) tokens. */
const HELLO_PROMPT = 9;
const MINUTE = 60_000;
/** 12:00:00 UTC, the start of a minute. */
const NOON = Date.parse('2027-01-10T12:00:00Z');

interface Limits {
  services: PluginServices;
  hooks: PluginHooks;
  admit(
    name: string,
    extra?: Record<string, unknown>,
    route?: 'chat' | 'embeddings',
  ): Promise<{ ctx: TestCtx; error?: GatewayError }>;
}

async function limits(t: Test, config: Record<string, unknown> = {}): Promise<Limits> {
  const services = pluginServices(t, {
    config: {
      projects: [
        { id: 'default', name: 'Default' },
        { id: 'team-b', name: 'B', rpm: 10 },
        { id: 'team-c', name: 'C', tpm: 1000 },
      ],
      keys: [
        { alias: 'rpm3', key: key('rpm3'), project: 'default', model_groups: ['demo'], rpm: 3 },
        { alias: 'tpm', key: key('tpm'), project: 'default', model_groups: ['demo'], tpm: 2000 },
        { alias: 'plain', key: key('plain'), project: 'default', model_groups: ['demo'] },
        { alias: 'b1', key: key('b1'), project: 'team-b', model_groups: ['demo'] },
        { alias: 'b2', key: key('b2'), project: 'team-b', model_groups: ['demo'] },
        { alias: 'c1', key: key('c1'), project: 'team-c', model_groups: ['demo'] },
      ],
    },
  });
  services.clock.set(NOON);
  const auth = await setupPlugin(authPlugin, services);
  const hooks = await setupPlugin(rateLimitPlugin, services, config);
  return {
    services,
    hooks,
    async admit(name, extra = {}, route = 'chat') {
      const body =
        route === 'embeddings'
          ? { model: 'demo', input: 'x'.repeat(400), ...extra }
          : { model: 'demo', messages: [{ role: 'user', content: 'Hello' }], ...extra };
      const ctx = makeCtx({ route, body, headers: { authorization: `Bearer ${key(name)}` }, clock: services.clock });
      await auth.onRequest!(ctx);
      try {
        await hooks.onRequest!(ctx);
        return { ctx };
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        return { ctx, error };
      }
    },
  };
}

/** Ends a request as a provider answer with this usage, then runs onLog (settlement). */
function answered(l: Limits, ctx: TestCtx, usage: Usage | undefined) {
  ctx.attempts.push({ d: 'demo-mock', o: 'ok', ms: 1 });
  ctx.usage = usage;
  ctx.source = 'upstream';
  l.hooks.onLog!(ctx);
}

t.test('key rpm: request N passes, N + 1 is refused; a refusal counts against nothing', async (t) => {
  const l = await limits(t);
  for (let i = 0; i < 3; i++) t.notOk((await l.admit('rpm3')).error, `request ${i + 1} of 3`);
  const { error } = await l.admit('rpm3');
  t.equal(error?.code, 'rate_limit_exceeded');
  t.equal(error?.status, 429);
  t.equal(error?.message, "Rate limit reached: key 'rpm3' allows 3 requests per minute. Retry after 60 s.");
  t.equal(error?.retryAfter, 60);
  t.same(error?.details, { scope: 'key', limit: 3, unit: 'requests_per_minute' });
  t.equal((await l.admit('rpm3')).error?.code, 'rate_limit_exceeded', 'still refused in the same minute');
  t.notOk((await l.admit('plain')).error, 'other keys are not limited by it');

  l.services.clock.advance(MINUTE);
  for (let i = 0; i < 3; i++) t.notOk((await l.admit('rpm3')).error, `next minute: request ${i + 1} of 3`);
  t.ok((await l.admit('rpm3')).error, 'refused again after three: the refusals were not counted');
});

t.test('retry-after is the whole seconds until the calendar minute ends, at least 1', async (t) => {
  const l = await limits(t);
  for (let i = 0; i < 3; i++) await l.admit('rpm3');
  for (const [offset, seconds] of [
    [0, 60],
    [500, 60],
    [30_500, 30],
    [59_000, 1],
    [59_999, 1],
  ]) {
    l.services.clock.set(NOON + offset);
    const { error } = await l.admit('rpm3');
    t.equal(error?.retryAfter, seconds, `at +${offset} ms: retry-after ${seconds}`);
    t.match(error?.message, `Retry after ${seconds} s.`);
  }
  l.services.clock.set(NOON + MINUTE);
  t.notOk((await l.admit('rpm3')).error, 'a new window at the minute boundary');
});

t.test('project rpm: shared by the keys of the project, not by other projects', async (t) => {
  const l = await limits(t);
  for (let i = 0; i < 10; i++) t.notOk((await l.admit(i % 2 ? 'b1' : 'b2')).error);
  const { error } = await l.admit('b1');
  t.equal(error?.message, "Rate limit reached: project 'team-b' allows 10 requests per minute. Retry after 60 s.");
  t.same(error?.details, { scope: 'project', limit: 10, unit: 'requests_per_minute' });
  t.ok((await l.admit('b2')).error, 'the other key of the project is refused too');
  t.notOk((await l.admit('plain')).error, 'another project is not');
});

t.test('key_defaults apply to keys that set no limit of their own', async (t) => {
  const l = await limits(t, { key_defaults: { rpm: 2 } });
  await l.admit('plain');
  await l.admit('plain');
  t.equal(
    (await l.admit('plain')).error?.message,
    "Rate limit reached: key 'plain' allows 2 requests per minute. Retry after 60 s.",
  );
  for (let i = 0; i < 3; i++) t.notOk((await l.admit('rpm3')).error, "a key's own rpm wins");
});

t.test('tokens: the admission estimate is reserved, then settled to the usage', async (t) => {
  const l = await limits(t);
  // 9 prompt + 991 allowance: two fit in 2000, a third does not.
  const first = await l.admit('tpm', { max_tokens: 991 });
  t.same(first.ctx.estimate(), { promptTokens: HELLO_PROMPT, outputTokens: 991 });
  const second = await l.admit('tpm', { max_tokens: 991 });
  t.notOk(first.error || second.error);
  const refused = await l.admit('tpm', { max_tokens: 991 });
  t.equal(refused.error?.code, 'tokens_limit_exceeded');
  t.equal(refused.error?.message, "Rate limit reached: key 'tpm' allows 2000 tokens per minute. Retry after 60 s.");
  t.same(refused.error?.details, { scope: 'key', limit: 2000, unit: 'tokens_per_minute' });

  answered(l, first.ctx, { prompt_tokens: 9, completion_tokens: 11, total_tokens: 20 });
  t.notOk((await l.admit('tpm', { max_tokens: 971 })).error, 'settled to 20: 20 + 1000 + 980 fits in 2000');
  t.ok((await l.admit('tpm', { max_tokens: 1 })).error, 'and nothing more');
});

t.test(
  'settlement: a cache hit and a failure give their tokens back; an answer without usage keeps them',
  async (t) => {
    const l = await limits(t);
    const reserve = { max_tokens: 1991 }; // 2000 with the prompt: the whole minute
    const cached = await l.admit('tpm', reserve);
    cached.ctx.usage = { prompt_tokens: 9, completion_tokens: 100, total_tokens: 109 };
    cached.ctx.source = 'cache';
    l.hooks.onLog!(cached.ctx);
    const failed = await l.admit('tpm', reserve);
    t.notOk(failed.error, 'a cache hit used no provider tokens');
    failed.ctx.attempts.push({ d: 'demo-mock', o: 'retryable', ms: 2, st: 503 });
    failed.ctx.source = 'gateway';
    l.hooks.onLog!(failed.ctx);
    const cut = await l.admit('tpm', reserve);
    t.notOk(cut.error, 'a request no provider answered used none');
    answered(l, cut.ctx, undefined);
    t.equal(
      (await l.admit('tpm', { max_tokens: 1 })).error?.code,
      'tokens_limit_exceeded',
      'a cut stream keeps its reservation',
    );
  },
);

t.test('embeddings reserve their input estimate alone; project tpm', async (t) => {
  const l = await limits(t);
  // 400 characters: 100 tokens, no output allowance. team-c allows 1000 tokens a minute.
  for (let i = 0; i < 10; i++) t.notOk((await l.admit('c1', {}, 'embeddings')).error, `embeddings ${i + 1}`);
  const { ctx, error } = await l.admit('c1', {}, 'embeddings');
  t.same(ctx.estimate(), { promptTokens: 100, outputTokens: 0 });
  t.equal(error?.message, "Rate limit reached: project 'team-c' allows 1000 tokens per minute. Retry after 60 s.");
});

t.test('counters that cannot be reached: 503 gateway_config_stale', async (t) => {
  const l = await limits(t);
  l.services.counters.admitMinute = () => Promise.reject(new CountersUnavailableError('redis is down'));
  const { error } = await l.admit('rpm3');
  t.equal(error?.code, 'gateway_config_stale');
  t.equal(error?.status, 503);
  t.equal(
    error?.message,
    'The gateway cannot enforce its rate limits: its counters store is unavailable. Retry shortly.',
  );
  t.notOk((await l.admit('plain')).error, 'a key without limits asks the counters nothing');
});
