// The auth plugin called directly, with the key store built from a config and a fake clock: how the key is found,
// key states (blocked, expired, rotated), networks, serving off and stale keys, and model group resolution.
import t, { type Test } from 'tap';
import authPlugin from '../../../plugins/auth/index.ts';
import { GatewayError, type PluginHooks } from '../../../src/plugin-api/index.ts';
import { makeCtx, pluginServices, setupPlugin, type PluginServices, type TestCtx } from '../../helpers/plugin.ts';

const key = (name: string) => `sk-test-${name}-0123456789abcdef`;
const HOUR = 3_600_000;
const NOW = Date.parse('2030-01-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const grant = (alias: string, extra: Record<string, unknown> = {}) => ({
  alias,
  key: key(alias),
  project: 'default',
  model_groups: ['demo'],
  ...extra,
});

interface Auth {
  services: PluginServices;
  hooks: PluginHooks;
  check(
    headers: Record<string, string>,
    options?: { route?: 'chat' | 'models'; model?: unknown; clientIp?: string },
  ): Promise<{ ctx: TestCtx; error?: GatewayError }>;
}

async function auth(t: Test, config: Record<string, unknown>): Promise<Auth> {
  const services = pluginServices(t, { config });
  services.clock.set(NOW);
  const hooks = await setupPlugin(authPlugin, services);
  return {
    services,
    hooks,
    async check(headers, options = {}) {
      const body: Record<string, unknown> = { messages: [{ role: 'user', content: 'Hello' }] };
      if ('model' in options) body.model = options.model;
      else body.model = 'demo';
      const peer = 'clientIp' in options ? { clientIp: options.clientIp } : {};
      const ctx = makeCtx({ route: options.route ?? 'chat', body, headers, ...peer });
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

const bearer = (name: string) => ({ authorization: `Bearer ${key(name)}` });

t.test('the key comes as a Bearer token or in the api-key header; missing or unknown is invalid_api_key', async (t) => {
  const a = await auth(t, { keys: [grant('ok')] });
  t.notOk((await a.check(bearer('ok'))).error, 'Bearer');
  t.notOk((await a.check({ authorization: `bearer   ${key('ok')}  ` })).error, 'the scheme in any case, spaces around');
  t.notOk((await a.check({ 'api-key': ` ${key('ok')} ` })).error, 'api-key');
  t.notOk(
    (await a.check({ authorization: 'Basic dXNlcjpwYXNz', 'api-key': key('ok') })).error,
    'a non-Bearer Authorization header does not hide an api-key header',
  );
  const missing = await a.check({});
  t.equal(missing.error?.code, 'invalid_api_key');
  t.equal(missing.error?.status, 401);
  t.equal(
    missing.error?.message,
    'Missing API key: send it as "Authorization: Bearer <key>" or in the "api-key" header.',
  );
  t.equal((await a.check({ 'api-key': '   ' })).error?.code, 'invalid_api_key', 'a blank api-key is missing');
  const unknown = await a.check(bearer('nobody'));
  t.equal(unknown.error?.message, 'Invalid API key.');
  t.equal(unknown.ctx.principal, undefined, 'nobody is known: no principal to trace');
});

t.test('the principal: who the key is, and its limits', async (t) => {
  const a = await auth(t, {
    agents: [{ id: 'bot', project: 'default', name: 'bot' }],
    org_units: [{ id: 'eng', project: 'default' }],
    keys: [grant('full', { agent: 'bot', unit: 'eng', rpm: 5, tpm: 500, budget_usd: 2, budget_period: 'daily' })],
  });
  const { ctx } = await a.check(bearer('full'));
  t.same(ctx.principal, {
    keyId: 'full',
    alias: 'full',
    projectId: 'default',
    agentId: 'bot',
    modelGroups: ['demo'],
    rpm: 5,
    tpm: 500,
    budgetUsd: 2,
    budgetPeriod: 'daily',
    unit: 'eng',
  });
  t.equal(ctx.group?.name, 'demo');
});

t.test('key states: blocked, expired, rotated with and without grace left, as the clock moves', async (t) => {
  const a = await auth(t, {
    keys: [
      grant('ok', { expires_at: iso(NOW + HOUR) }),
      grant('blocked', { blocked: true }),
      grant('blocked-expired', { blocked: true, expires_at: iso(NOW - HOUR) }),
      grant('expired', { expires_at: iso(NOW - 1000) }),
      grant('rotated-out', { rotated_at: iso(NOW - 25 * HOUR), rotation_grace_hours: 24 }),
      grant('rotated-no-grace', { rotated_at: iso(NOW - 1000) }),
      grant('rotated-in', { rotated_at: iso(NOW), rotation_grace_hours: 2 }),
      grant('rotated-in-expired', {
        rotated_at: iso(NOW - HOUR),
        rotation_grace_hours: 24,
        expires_at: iso(NOW - 1000),
      }),
      grant('fractional', { rotated_at: iso(NOW - 20 * 60_000), rotation_grace_hours: 0.5 }),
    ],
  });
  const code = async (name: string, route: 'chat' | 'models' = 'chat') =>
    (await a.check(bearer(name), { route })).error?.code;
  t.equal(await code('ok'), undefined, 'not yet expired');
  const blocked = await a.check(bearer('blocked'));
  t.equal(blocked.error?.code, 'key_blocked');
  t.equal(blocked.error?.message, 'This API key is blocked.');
  t.equal(blocked.ctx.principal?.alias, 'blocked', 'the principal is known, so the refusal can be traced');
  t.equal(await code('blocked-expired'), 'key_blocked', 'blocked wins over expired');
  t.equal(await code('blocked', 'models'), 'key_blocked', 'on /v1/models too');
  const expired = await a.check(bearer('expired'));
  t.equal(expired.error?.code, 'key_expired');
  t.equal(expired.error?.message, 'This API key has expired.');
  t.equal(await code('rotated-out'), 'key_expired');
  t.equal(await code('rotated-no-grace'), 'key_expired');
  t.equal(await code('rotated-in'), undefined, 'inside the rotation grace window');
  t.equal(await code('rotated-in-expired'), 'key_expired');
  t.equal(await code('fractional'), undefined, 'fractional grace hours');

  a.services.clock.advance(HOUR - 1);
  t.equal(await code('ok'), undefined, 'a millisecond before expiry');
  a.services.clock.advance(1);
  t.equal(await code('ok'), 'key_expired', 'at expiry');
  t.equal(await code('rotated-in'), undefined);
  a.services.clock.advance(HOUR);
  t.equal(await code('rotated-in'), 'key_expired', 'when the grace window ends');
});

t.test('serving off for the project, and keys that cannot be confirmed current', async (t) => {
  const a = await auth(t, { keys: [grant('ok')] });
  const keys = a.services.keys;
  const find = keys.find.bind(keys);
  (keys as { find: typeof find }).find = (hash) => {
    const r = find(hash);
    return r && { ...r, servingOff: true };
  };
  const off = await a.check(bearer('ok'));
  t.equal(off.error?.code, 'invalid_api_key');
  t.equal(off.error?.message, "Invalid API key: serving is off for this key's project.");
  t.equal(off.ctx.principal, undefined, 'refused before the principal is known');
  (keys as { stale?: () => boolean }).stale = () => true;
  const stale = await a.check(bearer('ok'));
  t.equal(stale.error?.code, 'gateway_config_stale');
  t.equal(stale.error?.status, 503);
  t.equal((await a.check({})).error?.code, 'invalid_api_key', 'a request without a key is refused first');
});

t.test('allowed_networks: the TCP peer must be inside one; IPv4-mapped IPv6 counts as IPv4', async (t) => {
  const a = await auth(t, {
    keys: [grant('office', { allowed_networks: ['10.0.0.0/8', '192.168.1.7', '2001:db8::/32'] })],
  });
  for (const ip of ['10.1.2.3', '::ffff:10.1.2.3', '192.168.1.7', '2001:db8::1'])
    t.notOk((await a.check(bearer('office'), { clientIp: ip })).error, `${ip}: allowed`);
  for (const ip of ['11.0.0.1', '192.168.1.8', '::ffff:192.168.1.8', '2001:db9::1', '127.0.0.1']) {
    const { error } = await a.check(bearer('office'), { clientIp: ip });
    t.equal(error?.code, 'ip_not_allowed', `${ip}: refused`);
    t.equal(error?.status, 403);
    t.equal(error?.message, `Requests from ${ip} are not allowed for this API key.`);
  }
  const unknown = await a.check(bearer('office'), { clientIp: undefined });
  t.equal(unknown.error?.message, 'Requests from an unknown address are not allowed for this API key.');
});

t.test('model groups: granted, not granted, unknown, omitted with zero, one or several groups', async (t) => {
  const a = await auth(t, {
    model_groups: [
      { name: 'demo', deployments: [{ id: 'demo-mock', provider: 'mock', model: 'mock-small' }] },
      { name: 'other', deployments: [{ id: 'other-mock', provider: 'mock', model: 'mock-small' }] },
    ],
    keys: [grant('one'), grant('two', { model_groups: ['demo', 'other'] }), grant('none', { model_groups: [] })],
  });
  t.equal((await a.check(bearer('two'), { model: 'other' })).ctx.group?.name, 'other', 'granted');
  const notGranted = await a.check(bearer('one'), { model: 'other' });
  t.equal(notGranted.error?.code, 'model_not_allowed');
  t.equal(notGranted.error?.status, 403);
  t.equal(notGranted.error?.message, "The model group 'other' does not exist or this key is not allowed to use it.");
  t.equal(
    (await a.check(bearer('two'), { model: 'nope' })).error?.message,
    "The model group 'nope' does not exist or this key is not allowed to use it.",
    'an unknown group reads the same as one not granted',
  );
  for (const model of [undefined, null, '']) {
    t.equal(
      (await a.check(bearer('one'), { model })).ctx.group?.name,
      'demo',
      `${JSON.stringify(model)}: the one group`,
    );
    t.equal(
      (await a.check(bearer('two'), { model })).error?.message,
      'The "model" field is required: this key is granted 2 model groups.',
    );
    t.equal(
      (await a.check(bearer('none'), { model })).error?.message,
      'The "model" field is required: this key is granted 0 model groups.',
    );
  }
  const models = await a.check(bearer('none'), { route: 'models' });
  t.notOk(models.error, '/v1/models needs no group');
  t.equal(models.ctx.group, undefined);
});

t.test(
  'onRequestHead: a missing, unknown or unconfirmable key is refused on the head; a known key goes on',
  async (t) => {
    const a = await auth(t, { keys: [grant('ok'), grant('blocked', { blocked: true })] });
    const head = (headers: Record<string, string>, route: 'chat' | 'models' = 'chat') => {
      try {
        a.hooks.onRequestHead!({ id: 'head', route, headers, clientIp: '10.9.9.9' });
        return undefined;
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        return error;
      }
    };
    const missing = head({});
    t.equal(missing?.code, 'invalid_api_key');
    t.equal(missing?.message, 'Missing API key: send it as "Authorization: Bearer <key>" or in the "api-key" header.');
    const unknown = head(bearer('nobody'), 'models');
    t.equal(unknown?.code, 'invalid_api_key');
    t.equal(unknown?.message, 'Invalid API key.', 'the same message as onRequest');
    t.equal(head(bearer('ok')), undefined);
    t.equal(head({ 'api-key': key('ok') }), undefined);
    t.equal(head(bearer('blocked')), undefined, 'what the record says (blocked, networks, model) is left to onRequest');
    t.equal((await a.check(bearer('blocked'), { clientIp: '10.9.9.9' })).error?.code, 'key_blocked');
    (a.services.keys as { stale?: () => boolean }).stale = () => true;
    t.equal(head(bearer('ok'))?.code, 'gateway_config_stale');
    t.equal(head(bearer('nobody'))?.code, 'gateway_config_stale', 'before the lookup, as in onRequest');
    t.equal(head({})?.code, 'invalid_api_key', 'a request without a key is refused first');
  },
);
