// The auth plugin: key presentation, key states, allowed networks (IPv4, IPv6, IPv4-mapped), model group
// resolution, GET /v1/models, and keys generated on first start (docs/api.md "Authentication" and
// "Errors", docs/decisions.md "Keys").
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { stringify } from 'yaml';
import { addressAllowed, parseAddress, parseNetworks } from '../../src/platform/networks.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { startService } from '../../src/runtime/service.ts';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { silentLogger } from '../../src/platform/telemetry/logger.ts';
import { baseConfig, chatBody, postJson, startTestService, TEST_KEY } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait-for.ts';

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const key = (name: string) => `sk-test-${name}-0123456789abcdef`;

const chat = (
  url: string,
  apiKey: string | undefined,
  body: unknown = chatBody(),
  headers: Record<string, string> = {},
) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
      ...headers,
    },
    body: JSON.stringify(body),
  });

const models = (url: string, headers: Record<string, string>) => fetch(`${url}/v1/models`, { headers });

async function refusal(t: Test, res: Response, status: number, code: string) {
  t.equal(res.status, status, code);
  const body = (await res.json()) as any;
  t.equal(body.error?.code, code);
  t.equal(body.error?.type, status === 401 ? 'authentication_error' : 'permission_error');
  t.equal(body.error?.param, null);
  t.match(res.headers.get('x-svc-request-id'), /^[0-9a-f-]{36}$/);
  return body;
}

function groups(...names: string[]) {
  return names.map((name, i) => ({
    name,
    ...(name === 'nodate' ? {} : { created_at: iso(Date.UTC(2026, 0, 1 + i)) }),
    ...(name === 'owned' ? { owned_by: 'acme' } : {}),
    deployments: [{ id: `${name}-mock`, provider: 'mock', model: `mock-${name}` }],
  }));
}

t.test('the key may come as a Bearer token or in the api-key header', async (t) => {
  const { gatewayUrl } = await startTestService(t, baseConfig());
  t.equal((await chat(gatewayUrl, TEST_KEY)).status, 200, 'Authorization: Bearer');
  t.equal(
    (await chat(gatewayUrl, undefined, chatBody(), { authorization: `bearer ${TEST_KEY}` })).status,
    200,
    'scheme is case-insensitive',
  );
  t.equal((await chat(gatewayUrl, undefined, chatBody(), { 'api-key': TEST_KEY })).status, 200, 'api-key header');
  t.equal(
    (await chat(gatewayUrl, undefined, chatBody(), { 'api-key': ` ${TEST_KEY} ` })).status,
    200,
    'api-key header, padded',
  );
  t.equal((await models(gatewayUrl, { 'api-key': TEST_KEY })).status, 200, 'api-key on /v1/models');
  const basic = `Basic ${Buffer.from('proxy:secret').toString('base64')}`;
  t.equal(
    (await chat(gatewayUrl, undefined, chatBody(), { authorization: basic, 'api-key': TEST_KEY })).status,
    200,
    'a non-Bearer Authorization does not hide api-key',
  );

  await refusal(t, await chat(gatewayUrl, undefined), 401, 'invalid_api_key');
  const missing = await refusal(t, await chat(gatewayUrl, undefined), 401, 'invalid_api_key');
  t.match(missing.error.message, /Missing API key/);
  const unknown = await refusal(t, await chat(gatewayUrl, 'sk-test-unknown-0123456789'), 401, 'invalid_api_key');
  t.match(unknown.error.message, /Invalid API key/);
  await refusal(
    t,
    await chat(gatewayUrl, undefined, chatBody(), { 'api-key': 'sk-test-unknown-0123456789' }),
    401,
    'invalid_api_key',
  );
  await refusal(
    t,
    await chat(gatewayUrl, undefined, chatBody(), {
      authorization: `Basic ${Buffer.from(`x:${TEST_KEY}`).toString('base64')}`,
    }),
    401,
    'invalid_api_key',
  );
  await refusal(
    t,
    await chat(gatewayUrl, undefined, chatBody(), { authorization: `Bearer ${TEST_KEY} extra` }),
    401,
    'invalid_api_key',
  );
  await refusal(
    t,
    await chat(gatewayUrl, undefined, chatBody(), { authorization: `Bearer ${TEST_KEY.slice(0, -1)}` }),
    401,
    'invalid_api_key',
  );
  await refusal(
    t,
    await chat(gatewayUrl, undefined, chatBody(), { authorization: `Bearer ${TEST_KEY}x` }),
    401,
    'invalid_api_key',
  );
  await refusal(t, await models(gatewayUrl, {}), 401, 'invalid_api_key');
  const noKeyEmb = await postJson(gatewayUrl, '/v1/embeddings', { model: 'demo', input: 'x' }, { authorization: '' });
  await refusal(t, noKeyEmb, 401, 'invalid_api_key');
  const unknownNoGroup = await refusal(
    t,
    await chat(gatewayUrl, 'sk-test-unknown-0123456789', chatBody({ model: 'nope' })),
    401,
    'invalid_api_key',
  );
  t.notMatch(unknownNoGroup.error.message, /nope/, 'an unknown key learns nothing about groups');
});

t.test('key states: blocked, expired, rotated with and without grace left', async (t) => {
  const now = Date.now();
  const { gatewayUrl } = await startTestService(
    t,
    baseConfig({
      keys: [
        { alias: 'ok', key: key('ok'), project: 'default', model_groups: ['demo'], expires_at: iso(now + 24 * HOUR) },
        { alias: 'blocked', key: key('blocked'), project: 'default', model_groups: ['demo'], blocked: true },
        {
          alias: 'blocked-expired',
          key: key('blocked-expired'),
          project: 'default',
          model_groups: ['demo'],
          blocked: true,
          expires_at: iso(now - HOUR),
        },
        {
          alias: 'expired',
          key: key('expired'),
          project: 'default',
          model_groups: ['demo'],
          expires_at: iso(now - 1000),
        },
        {
          alias: 'rotated-out',
          key: key('rotated-out'),
          project: 'default',
          model_groups: ['demo'],
          rotated_at: iso(now - 25 * HOUR),
          rotation_grace_hours: 24,
        },
        {
          alias: 'rotated-no-grace',
          key: key('rotated-no-grace'),
          project: 'default',
          model_groups: ['demo'],
          rotated_at: iso(now - 1000),
        },
        {
          alias: 'rotated-in',
          key: key('rotated-in'),
          project: 'default',
          model_groups: ['demo'],
          rotated_at: iso(now - HOUR),
          rotation_grace_hours: 24,
        },
        {
          alias: 'rotated-in-expired',
          key: key('rotated-in-expired'),
          project: 'default',
          model_groups: ['demo'],
          rotated_at: iso(now - HOUR),
          rotation_grace_hours: 24,
          expires_at: iso(now - 1000),
        },
        {
          alias: 'fractional',
          key: key('fractional'),
          project: 'default',
          model_groups: ['demo'],
          rotated_at: iso(now - 20 * 60_000),
          rotation_grace_hours: 0.5,
        },
      ],
    }),
  );
  t.equal((await chat(gatewayUrl, key('ok'))).status, 200, 'not yet expired');
  const blocked = await refusal(t, await chat(gatewayUrl, key('blocked')), 401, 'key_blocked');
  t.match(blocked.error.message, /blocked/);
  await refusal(t, await chat(gatewayUrl, key('blocked-expired')), 401, 'key_blocked');
  await refusal(t, await models(gatewayUrl, { authorization: `Bearer ${key('blocked')}` }), 401, 'key_blocked');
  const expired = await refusal(t, await chat(gatewayUrl, key('expired')), 401, 'key_expired');
  t.match(expired.error.message, /expired/);
  await refusal(t, await chat(gatewayUrl, key('rotated-out')), 401, 'key_expired');
  await refusal(t, await chat(gatewayUrl, key('rotated-no-grace')), 401, 'key_expired');
  const inWindow = await chat(gatewayUrl, key('rotated-in'));
  t.equal(inWindow.status, 200, 'inside the rotation grace window');
  t.equal(inWindow.headers.get('x-svc-model-group'), 'demo');
  await refusal(t, await chat(gatewayUrl, key('rotated-in-expired')), 401, 'key_expired');
  t.equal((await chat(gatewayUrl, key('fractional'))).status, 200, 'fractional grace hours');
  await refusal(t, await models(gatewayUrl, { 'api-key': key('expired') }), 401, 'key_expired');
});

t.test('a key expires while the service runs (injected clock)', async (t) => {
  let now = Date.parse('2030-01-01T00:00:00Z');
  const clock = { now: () => now, sleep: systemClock.sleep };
  const { gatewayUrl } = await startTestService(
    t,
    baseConfig({
      keys: [
        { alias: 'a', key: key('a'), project: 'default', model_groups: ['demo'], expires_at: '2030-01-01T01:00:00Z' },
        {
          alias: 'b',
          key: key('b'),
          project: 'default',
          model_groups: ['demo'],
          rotated_at: '2030-01-01T00:00:00Z',
          rotation_grace_hours: 2,
        },
      ],
    }),
    { clock },
  );
  t.equal((await chat(gatewayUrl, key('a'))).status, 200);
  t.equal((await chat(gatewayUrl, key('b'))).status, 200);
  now += HOUR - 1;
  t.equal((await chat(gatewayUrl, key('a'))).status, 200, 'a millisecond before expiry');
  now += 1;
  await refusal(t, await chat(gatewayUrl, key('a')), 401, 'key_expired');
  t.equal((await chat(gatewayUrl, key('b'))).status, 200);
  now += HOUR;
  await refusal(t, await chat(gatewayUrl, key('b')), 401, 'key_expired');
});

t.test('allowed_networks over IPv4', async (t) => {
  const { gatewayUrl } = await startTestService(
    t,
    baseConfig({
      keys: [
        {
          alias: 'loop',
          key: key('loop'),
          project: 'default',
          model_groups: ['demo'],
          allowed_networks: ['127.0.0.0/8'],
        },
        {
          alias: 'exact',
          key: key('exact'),
          project: 'default',
          model_groups: ['demo'],
          allowed_networks: ['127.0.0.1'],
        },
        { alias: 'ten', key: key('ten'), project: 'default', model_groups: ['demo'], allowed_networks: ['10.0.0.0/8'] },
        {
          alias: 'v6only',
          key: key('v6only'),
          project: 'default',
          model_groups: ['demo'],
          allowed_networks: ['::1/128'],
        },
        {
          alias: 'both',
          key: key('both'),
          project: 'default',
          model_groups: ['demo'],
          allowed_networks: ['10.0.0.0/8', '::1', '127.0.0.1/32'],
        },
        { alias: 'empty', key: key('empty'), project: 'default', model_groups: ['demo'], allowed_networks: [] },
        {
          alias: 'blocked-ten',
          key: key('blocked-ten'),
          project: 'default',
          model_groups: ['demo'],
          allowed_networks: ['10.0.0.0/8'],
          blocked: true,
        },
      ],
    }),
  );
  t.equal((await chat(gatewayUrl, key('loop'))).status, 200, '127.0.0.0/8 allows 127.0.0.1');
  t.equal((await chat(gatewayUrl, key('exact'))).status, 200, 'a bare address');
  t.equal((await chat(gatewayUrl, key('both'))).status, 200, 'any listed network');
  t.equal((await chat(gatewayUrl, key('empty'))).status, 200, 'an empty list means no restriction');
  const ten = await refusal(t, await chat(gatewayUrl, key('ten')), 403, 'ip_not_allowed');
  t.match(ten.error.message, /127\.0\.0\.1/, 'the message names the address');
  await refusal(t, await chat(gatewayUrl, key('v6only')), 403, 'ip_not_allowed');
  await refusal(t, await models(gatewayUrl, { authorization: `Bearer ${key('ten')}` }), 403, 'ip_not_allowed');
  await refusal(t, await chat(gatewayUrl, key('blocked-ten')), 401, 'key_blocked');
  const spoof = await chat(gatewayUrl, key('ten'), chatBody(), {
    'x-forwarded-for': '10.1.2.3',
    'x-real-ip': '10.1.2.3',
  });
  await refusal(t, spoof, 403, 'ip_not_allowed');
});

async function canListen(host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(0, host, () => server.close(() => resolve(true)));
  });
}

// Where the machine has no IPv6 the listener tests over it are skipped, saying why; the networks module's own tests
// below still run.
const noIpv6Loopback =
  !(await canListen('::1')) && 'no IPv6 loopback on this machine; the networks module is tested directly below';
const noIpv6 =
  !(await canListen('::')) && 'no IPv6 on this machine; IPv4-mapped matching is tested on the networks module below';

t.test('allowed_networks over IPv6 loopback', { skip: noIpv6Loopback }, async (t) => {
  const { gatewayUrl, adminUrl } = await startTestService(
    t,
    baseConfig({
      keys: [
        { alias: 'v6', key: key('v6'), project: 'default', model_groups: ['demo'], allowed_networks: ['::1/128'] },
        {
          alias: 'v6-bare',
          key: key('v6-bare'),
          project: 'default',
          model_groups: ['demo'],
          allowed_networks: ['::1'],
        },
        { alias: 'v4', key: key('v4'), project: 'default', model_groups: ['demo'], allowed_networks: ['127.0.0.0/8'] },
        { alias: 'ula', key: key('ula'), project: 'default', model_groups: ['demo'], allowed_networks: ['fd00::/8'] },
      ],
    }),
    { host: '::1' },
  );
  t.match(gatewayUrl, /^http:\/\/\[::1\]:\d+$/);
  t.match(adminUrl, /^http:\/\/\[::1\]:\d+$/);
  t.equal((await chat(gatewayUrl, key('v6'))).status, 200, '::1/128 allows ::1');
  t.equal((await chat(gatewayUrl, key('v6-bare'))).status, 200);
  const v4 = await refusal(t, await chat(gatewayUrl, key('v4')), 403, 'ip_not_allowed');
  t.match(v4.error.message, /::1/);
  await refusal(t, await chat(gatewayUrl, key('ula')), 403, 'ip_not_allowed');
  t.equal((await fetch(`${adminUrl}/health`)).status, 200);
});

t.test(
  'a dual-stack listener sees IPv4 clients as ::ffff:127.0.0.1, and IPv4 ranges match them',
  { skip: noIpv6 },
  async (t) => {
    const { gatewayUrl } = await startTestService(
      t,
      baseConfig({
        keys: [
          {
            alias: 'v4',
            key: key('v4'),
            project: 'default',
            model_groups: ['demo'],
            allowed_networks: ['127.0.0.0/8'],
          },
          {
            alias: 'mapped',
            key: key('mapped'),
            project: 'default',
            model_groups: ['demo'],
            allowed_networks: ['::ffff:127.0.0.0/104'],
          },
          {
            alias: 'ten',
            key: key('ten'),
            project: 'default',
            model_groups: ['demo'],
            allowed_networks: ['10.0.0.0/8'],
          },
          { alias: 'v6', key: key('v6'), project: 'default', model_groups: ['demo'], allowed_networks: ['::1/128'] },
        ],
      }),
      { host: '::' },
    );
    t.match(gatewayUrl, /^http:\/\/127\.0\.0\.1:\d+$/, 'clients reach the dual-stack listener over IPv4');
    t.equal((await chat(gatewayUrl, key('v4'))).status, 200, '127.0.0.0/8 matches ::ffff:127.0.0.1');
    t.equal((await chat(gatewayUrl, key('mapped'))).status, 200, 'an IPv4-mapped range is the IPv4 range');
    const ten = await refusal(t, await chat(gatewayUrl, key('ten')), 403, 'ip_not_allowed');
    t.match(ten.error.message, /127\.0\.0\.1/);
    await refusal(t, await chat(gatewayUrl, key('v6')), 403, 'ip_not_allowed');
  },
);

t.test('the networks module', async (t) => {
  const ten = parseNetworks(['10.0.0.0/8']);
  t.ok(addressAllowed('10.1.2.3', ten));
  t.ok(addressAllowed('::ffff:10.1.2.3', ten), 'IPv4-mapped IPv6 matches an IPv4 range');
  t.ok(addressAllowed('::FFFF:10.1.2.3', ten), 'case does not matter');
  t.ok(addressAllowed('::ffff:a01:203', ten), 'hex form of the mapped address');
  t.notOk(addressAllowed('::ffff:11.1.2.3', ten));
  t.notOk(addressAllowed('11.0.0.1', ten));
  t.notOk(addressAllowed('::1', ten));
  t.notOk(addressAllowed(undefined, ten), 'no address is not allowed');
  t.notOk(addressAllowed('not an address', ten));
  t.notOk(addressAllowed('', ten));

  const mappedRange = parseNetworks(['::ffff:10.0.0.0/104']);
  t.ok(addressAllowed('10.200.0.1', mappedRange), 'an IPv4-mapped range matches plain IPv4');
  t.ok(addressAllowed('::ffff:10.200.0.1', mappedRange));
  t.notOk(addressAllowed('11.0.0.1', mappedRange));

  const v6 = parseNetworks(['::1/128', '2001:db8::/32']);
  t.ok(addressAllowed('::1', v6));
  t.ok(addressAllowed('0:0:0:0:0:0:0:1', v6), 'expanded form');
  t.ok(addressAllowed('2001:db8:1::5', v6));
  t.ok(addressAllowed('2001:DB8::', v6));
  t.notOk(addressAllowed('2001:db9::1', v6));
  t.notOk(addressAllowed('::2', v6));
  t.notOk(addressAllowed('127.0.0.1', v6), 'IPv6 ranges never match IPv4 addresses');
  t.notOk(addressAllowed('::ffff:127.0.0.1', v6));

  const bare = parseNetworks(['192.168.1.10', '::1']);
  t.ok(addressAllowed('192.168.1.10', bare), 'a bare IPv4 address is a /32');
  t.notOk(addressAllowed('192.168.1.11', bare));
  t.ok(addressAllowed('::ffff:192.168.1.10', bare));
  t.ok(addressAllowed('::1', bare), 'a bare IPv6 address is a /128');

  t.ok(addressAllowed('8.8.8.8', parseNetworks(['0.0.0.0/0'])), '/0 allows every IPv4 address');
  t.ok(addressAllowed('::ffff:8.8.8.8', parseNetworks(['0.0.0.0/0'])));
  t.ok(addressAllowed('2001:db8::1', parseNetworks(['::/0'])));
  t.notOk(addressAllowed('1.2.3.4', []), 'an empty list allows nothing (the key store treats [] as no restriction)');

  t.equal(parseAddress('::ffff:127.0.0.1')?.kind(), 'ipv4');
  t.equal(parseAddress('::ffff:127.0.0.1')?.toString(), '127.0.0.1');
  t.equal(parseAddress('::1')?.kind(), 'ipv6');
  t.equal(parseAddress('nope'), undefined);

  // Legacy IPv4 forms are refused rather than read as another network ('010.0.0.0' would be 8.0.0.0).
  for (const bad of [
    '10.0.0.0/33',
    '::1/129',
    'example.com',
    '10.0.0',
    '127.1',
    '010.0.0.0/8',
    '0x7f.0.0.1',
    '2130706433',
    '1.2.3.4/',
    '',
  ]) {
    t.throws(
      () => parseNetworks([bad]),
      { message: new RegExp(`'${bad.replace(/[./]/g, '\\$&')}' is not an IPv4 or IPv6 address or CIDR range`) },
      `rejects ${JSON.stringify(bad)}`,
    );
  }
});

t.test('model groups: granted, not granted, unknown, omitted with zero, one or several groups', async (t) => {
  const { gatewayUrl } = await startTestService(
    t,
    baseConfig({
      model_groups: groups('demo', 'alpha', 'beta'),
      keys: [
        { alias: 'one', key: key('one'), project: 'default', model_groups: ['demo'] },
        { alias: 'two', key: key('two'), project: 'default', model_groups: ['demo', 'alpha'] },
        { alias: 'zero', key: key('zero'), project: 'default' },
      ],
    }),
  );
  const ok = await chat(gatewayUrl, key('one'));
  t.equal(ok.status, 200);
  t.equal(ok.headers.get('x-svc-model-group'), 'demo');
  t.equal(ok.headers.get('x-svc-deployment'), 'demo-mock');

  const notGranted = await refusal(
    t,
    await chat(gatewayUrl, key('one'), chatBody({ model: 'alpha' })),
    403,
    'model_not_allowed',
  );
  t.match(notGranted.error.message, /alpha/);
  const unknown = await refusal(
    t,
    await chat(gatewayUrl, key('one'), chatBody({ model: 'nope' })),
    403,
    'model_not_allowed',
  );
  t.match(unknown.error.message, /nope/);
  const emb = await postJson(
    gatewayUrl,
    '/v1/embeddings',
    { model: 'beta', input: 'x' },
    { authorization: `Bearer ${key('two')}` },
  );
  await refusal(t, emb, 403, 'model_not_allowed');
  await refusal(t, await chat(gatewayUrl, key('one'), chatBody({ model: 'DEMO' })), 403, 'model_not_allowed');
  await refusal(t, await chat(gatewayUrl, key('one'), chatBody({ model: 'mock-demo' })), 403, 'model_not_allowed');

  for (const model of [undefined, '', null]) {
    const body = { messages: [{ role: 'user', content: 'hi' }], ...(model === undefined ? {} : { model }) };
    const one = await chat(gatewayUrl, key('one'), body);
    t.equal(one.status, 200, `model ${JSON.stringify(model)} with exactly one group uses it`);
    t.equal(one.headers.get('x-svc-model-group'), 'demo');
    const two = await refusal(t, await chat(gatewayUrl, key('two'), body), 403, 'model_not_allowed');
    t.match(two.error.message, /model/);
    t.match(two.error.message, /2 model groups/);
    await refusal(t, await chat(gatewayUrl, key('zero'), body), 403, 'model_not_allowed');
    const embOne = await postJson(
      gatewayUrl,
      '/v1/embeddings',
      { input: 'x', ...(model === undefined ? {} : { model }) },
      { authorization: `Bearer ${key('one')}` },
    );
    t.equal(embOne.status, 200, `embeddings: model ${JSON.stringify(model)} with one group`);
    t.equal(embOne.headers.get('x-svc-model-group'), 'demo');
  }
  await refusal(t, await chat(gatewayUrl, key('zero'), chatBody({ model: 'demo' })), 403, 'model_not_allowed');
  const alpha = await chat(gatewayUrl, key('two'), chatBody({ model: 'alpha' }));
  t.equal(alpha.status, 200);
  t.equal(alpha.headers.get('x-svc-model-group'), 'alpha');
  t.equal(alpha.headers.get('x-svc-deployment'), 'alpha-mock');
  t.equal((await chat(gatewayUrl, key('two'), chatBody({ model: 'demo' }))).status, 200);
});

t.test('GET /v1/models lists only granted groups, sorted, with created and owned_by', async (t) => {
  const { gatewayUrl, service } = await startTestService(
    t,
    baseConfig({
      model_groups: groups('zeta', 'demo', 'owned', 'hidden', 'Alpha', 'alpha'),
      keys: [
        {
          alias: 'many',
          key: key('many'),
          project: 'default',
          model_groups: ['zeta', 'owned', 'demo', 'alpha', 'Alpha'],
        },
        { alias: 'zero', key: key('zero'), project: 'default', model_groups: [] },
      ],
    }),
  );
  const res = await models(gatewayUrl, { authorization: `Bearer ${key('many')}` });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /application\/json/);
  t.match(res.headers.get('x-svc-request-id'), /^[0-9a-f-]{36}$/);
  t.equal(res.headers.get('x-svc-model-group'), null, 'no group serves a models list');
  const body = (await res.json()) as any;
  t.equal(body.object, 'list');
  t.same(
    body.data.map((m: any) => m.id),
    ['Alpha', 'alpha', 'demo', 'owned', 'zeta'],
    'sorted by name (code point), hidden left out',
  );
  for (const m of body.data) {
    t.same(Object.keys(m).sort(), ['created', 'id', 'object', 'owned_by']);
    t.equal(m.object, 'model');
    t.ok(Number.isInteger(m.created), 'created is integer seconds');
    const group = service.current().config.model_groups.find((g) => g.name === m.id)!;
    t.equal(m.created, Date.parse(group.created_at!) / 1000, `${m.id}: created from created_at`);
    t.equal(m.owned_by, m.id === 'owned' ? 'acme' : 'svc');
  }
  const zero = (await (await models(gatewayUrl, { authorization: `Bearer ${key('zero')}` })).json()) as any;
  t.same(zero, { object: 'list', data: [] }, 'a key with no groups sees an empty list');
});

t.test('created without created_at is the first-load time, kept in data_dir across restarts', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-auth-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const configPath = join(dir, 'gateway.yaml');
  writeFileSync(
    configPath,
    stringify(
      baseConfig({
        store: { data_dir: './state' },
        model_groups: groups('nodate', 'demo'),
        keys: [{ alias: 'k', key: key('k'), project: 'default', model_groups: ['nodate', 'demo'] }],
      }),
    ),
  );
  const first = Date.parse('2031-05-05T10:00:00.900Z');
  const start = (nowMs: number) =>
    startService({
      configPath,
      log: silentLogger,
      watch: false,
      processMetrics: false,
      clock: { now: () => nowMs, sleep: systemClock.sleep },
    });
  const list = async (url: string) =>
    ((await (await models(url, { authorization: `Bearer ${key('k')}` })).json()) as any).data;

  const a = await start(first);
  const before = await list(a.gatewayUrl);
  await a.stop();
  const nodate = before.find((m: any) => m.id === 'nodate');
  t.equal(nodate.created, Math.floor(first / 1000), 'the first load time, in seconds');
  const statePath = join(dir, 'state', 'gateway-state.json');
  t.ok(existsSync(statePath), 'data_dir is resolved against the config file');
  const state = JSON.parse(readFileSync(statePath, 'utf8'));
  t.same(state.model_groups_created, { nodate: Math.floor(first / 1000) }, 'only groups without created_at are kept');

  const b = await start(first + 48 * HOUR);
  t.teardown(() => b.stop());
  const after = await list(b.gatewayUrl);
  t.same(after, before, 'created is stable across a restart');
  const r = await b.reload();
  t.same(r, { ok: true });
  t.same(await list(b.gatewayUrl), before, 'and across a reload');
});

t.test('a key with an empty `key` is generated once per data dir; its plaintext is given once', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-auth-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const configPath = join(dir, 'gateway.yaml');
  writeFileSync(
    configPath,
    [
      'version: 1',
      'server: { host: 127.0.0.1, port: 0, admin_port: 0 }',
      `store: { data_dir: ${JSON.stringify(join(dir, 'data'))} }`,
      'model_groups:',
      '  - { name: demo, deployments: [{ id: demo-mock, provider: mock, model: mock-small }] }',
      'keys:',
      '  - { alias: generated, key: "${SVC_TEST_UNSET_KEY}", project: default, model_groups: [demo] }',
      '  - { alias: empty, key: "", project: default, model_groups: [demo] }',
      `  - { alias: fixed, key: ${key('fixed')}, project: default, model_groups: [demo] }`,
      'plugins: [{ use: auth }, { use: router }]',
      '',
    ].join('\n'),
  );
  const seen: string[] = [];
  const start = () =>
    startService({
      configPath,
      env: {},
      log: silentLogger,
      watch: false,
      processMetrics: false,
      onGeneratedKey: (g) => seen.push(g.alias),
    });

  const a = await start();
  t.equal(a.generatedKeys.length, 2, 'one generated key per key without a value');
  t.same(a.generatedKeys.map((g) => g.alias).sort(), ['empty', 'generated']);
  t.same(seen.sort(), ['empty', 'generated'], 'onGeneratedKey is told');
  for (const g of a.generatedKeys) t.match(g.key, /^sk-svc-[A-Za-z0-9_-]{32}$/);
  t.not(a.generatedKeys[0].key, a.generatedKeys[1].key);
  const plaintext = Object.fromEntries(a.generatedKeys.map((g) => [g.alias, g.key]));
  t.equal((await chat(a.gatewayUrl, plaintext.generated)).status, 200, 'the generated key works');
  t.equal((await chat(a.gatewayUrl, plaintext.empty)).status, 200);
  t.equal((await chat(a.gatewayUrl, key('fixed'))).status, 200);
  const stateText = readFileSync(join(dir, 'data', 'gateway-state.json'), 'utf8');
  t.notMatch(stateText, plaintext.generated, 'the plaintext is not stored');
  t.match(JSON.parse(stateText).generated_keys, { generated: /^[0-9a-f]{64}$/, empty: /^[0-9a-f]{64}$/ });
  t.equal((await a.reload()).ok, true);
  t.equal(a.generatedKeys.length, 2, 'a reload generates nothing new');
  t.equal((await chat(a.gatewayUrl, plaintext.generated)).status, 200, 'and the key still works after it');
  await a.stop();

  seen.length = 0;
  const b = await start();
  t.teardown(() => b.stop());
  t.same(b.generatedKeys, [], 'a second start with the same data dir generates nothing');
  t.same(seen, []);
  t.equal((await chat(b.gatewayUrl, plaintext.generated)).status, 200, 'the old key still works');
  t.equal((await chat(b.gatewayUrl, plaintext.empty)).status, 200);
  await refusal(t, await chat(b.gatewayUrl, 'sk-svc-not-the-generated-one-000000'), 401, 'invalid_api_key');
});

t.test(
  'projects[].serving: false refuses every key of the project with 401 invalid_api_key, untraced; other projects are served',
  async (t) => {
    const withServing = (serving: boolean) =>
      baseConfig({
        projects: [
          { id: 'default', name: 'Default' },
          { id: 'paused', name: 'Paused', serving },
        ],
        agents: [{ id: 'paused-bot', project: 'paused', name: 'paused bot' }],
        keys: [
          { alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['demo'] },
          { alias: 'paused', key: key('paused'), project: 'paused', model_groups: ['demo'] },
          {
            alias: 'paused-blocked',
            key: key('paused-blocked'),
            project: 'paused',
            model_groups: ['demo'],
            blocked: true,
          },
        ],
        plugins: [{ use: 'auth' }, { use: 'router' }, { use: 'tracing' }],
      });
    const svc = await startTestService(t, withServing(false));
    const db = svc.service.db;
    const apiKey = await createApiKey(db, {
      kind: 'project',
      organizationId: 'default',
      projectId: 'paused',
      now: Date.now(),
    });
    const minted = await fetch(`${svc.adminUrl}/api/public/v1/gateway/keys`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`${apiKey.publicKey}:${apiKey.secretKey}`).toString('base64')}`,
      },
      body: JSON.stringify({ agentId: 'paused-bot', modelGroups: ['demo'], expiresInHours: 1 }),
    });
    t.equal(minted.status, 201, 'a key can still be minted for the project');
    const mintedKey = ((await minted.json()) as any).key;

    for (const [label, apiKeyText] of [
      ['a gateway.yaml key', key('paused')],
      ['a blocked one (serving off is checked first)', key('paused-blocked')],
      ['a minted key', mintedKey],
    ]) {
      const body = await refusal(t, await chat(svc.gatewayUrl, apiKeyText), 401, 'invalid_api_key');
      t.equal(body.error.message, "Invalid API key: serving is off for this key's project.", label);
      await refusal(t, await models(svc.gatewayUrl, { authorization: `Bearer ${apiKeyText}` }), 401, 'invalid_api_key');
    }
    const served = await chat(svc.gatewayUrl, TEST_KEY);
    t.equal(served.status, 200, 'a key of another project is served');
    // Traces are written in order: once the served request's trace is stored, the refusals' would be too.
    const servedId = served.headers.get('x-svc-request-id');
    await waitFor(
      'the served trace',
      async () => (await db.query('SELECT 1 FROM traces WHERE id = $1', [servedId])).rows.length === 1,
    );
    t.same(
      (await db.query("SELECT id FROM traces WHERE project_id = 'paused'")).rows,
      [],
      'the refusals were not traced',
    );

    svc.writeConfig(withServing(true));
    t.same(await svc.service.reload(), { ok: true });
    t.equal(
      (await chat(svc.gatewayUrl, key('paused'))).status,
      200,
      'serving: true (the default) serves the project again',
    );
    t.equal((await chat(svc.gatewayUrl, mintedKey)).status, 200);
    await refusal(t, await chat(svc.gatewayUrl, key('paused-blocked')), 401, 'key_blocked');
  },
);

t.test('key_sha256 keys work without the plaintext in the config', async (t) => {
  const { createHash } = await import('node:crypto');
  const plaintext = key('hashed');
  const { gatewayUrl } = await startTestService(
    t,
    baseConfig({
      keys: [
        {
          alias: 'hashed',
          key_sha256: createHash('sha256').update(plaintext).digest('hex'),
          project: 'default',
          model_groups: ['demo'],
        },
      ],
    }),
  );
  t.equal((await chat(gatewayUrl, plaintext)).status, 200);
  await refusal(
    t,
    await chat(gatewayUrl, createHash('sha256').update(plaintext).digest('hex')),
    401,
    'invalid_api_key',
  );
});
