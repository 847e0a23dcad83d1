// The SSRF rules of webhook deliveries: every non-public range (IPv4, IPv6, IPv4 carried in IPv6), the exemptions
// (allow_private_networks, allowed_hosts), host names checked through their resolved addresses, and redirects
// re-checked at each hop.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import {
  blockedRange,
  checkAddress,
  checkUrl,
  resolveChecked,
  SsrfError,
  type SsrfPolicy,
} from '../../src/observability/webhooks/ssrf.ts';
import { createWebhookSender } from '../../src/observability/webhooks/webhook-sender.ts';

const strict: SsrfPolicy = { allowPrivateNetworks: false, allowedHosts: [] };

t.test('non-public addresses are refused, public unicast is not', async (t) => {
  const blocked: Record<string, string> = {
    '127.0.0.1': 'loopback',
    '127.255.255.254': 'loopback',
    '10.1.2.3': 'private',
    '172.16.0.1': 'private',
    '172.31.255.255': 'private',
    '192.168.1.1': 'private',
    '169.254.169.254': 'linkLocal',
    '100.64.0.1': 'carrierGradeNat',
    '100.127.255.255': 'carrierGradeNat',
    '224.0.0.1': 'multicast',
    '0.0.0.0': 'unspecified',
    '255.255.255.255': 'broadcast',
    '::1': 'loopback',
    '::': 'unspecified',
    'fe80::1': 'linkLocal',
    'fc00::1': 'uniqueLocal',
    'fd12:3456::1': 'uniqueLocal',
    'ff02::1': 'multicast',
    '::ffff:127.0.0.1': 'loopback',
    '::ffff:10.0.0.1': 'private',
    '::ffff:169.254.169.254': 'linkLocal',
    '64:ff9b::a00:1': 'rfc6052',
    '2002:a00:1::1': '6to4',
    '2001::1': 'teredo',
  };
  for (const [address, range] of Object.entries(blocked)) {
    t.equal(blockedRange(address), range, address);
    t.throws(() => checkAddress(address, strict), SsrfError, `${address} refused`);
  }
  for (const address of [
    '8.8.8.8',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
  ]) {
    t.equal(blockedRange(address), undefined, `${address} is public`);
    t.doesNotThrow(() => checkAddress(address, strict));
  }
});

t.test('URLs: http(s) only, address literals checked at once', async (t) => {
  t.throws(() => checkUrl(new URL('ftp://example.com/'), strict), /ftp/);
  t.throws(() => checkUrl(new URL('http://127.0.0.1:8080/'), strict), SsrfError);
  t.throws(() => checkUrl(new URL('http://[::1]/'), strict), SsrfError);
  t.throws(() => checkUrl(new URL('http://[::ffff:7f00:1]/'), strict), SsrfError, 'mapped loopback in hex form');
  t.throws(
    () => checkUrl(new URL('http://2130706433/'), strict),
    SsrfError,
    'decimal 127.0.0.1 (the URL parser normalises it)',
  );
  t.doesNotThrow(() => checkUrl(new URL('https://example.com/hook'), strict), 'names are checked at connect time');
});

t.test('exemptions: allow_private_networks and allowed_hosts (names, addresses, ranges)', async (t) => {
  t.doesNotThrow(() => checkAddress('10.0.0.1', { allowPrivateNetworks: true, allowedHosts: [] }));
  const policy: SsrfPolicy = { allowPrivateNetworks: false, allowedHosts: ['hooks.internal', '10.9.0.0/16', '::1'] };
  t.doesNotThrow(() => checkAddress('10.0.0.1', policy, 'HOOKS.internal'), 'a named host, whatever it resolves to');
  t.doesNotThrow(() => checkAddress('10.9.3.4', policy), 'inside an allowed range');
  t.throws(() => checkAddress('10.8.3.4', policy), SsrfError, 'outside it');
  t.doesNotThrow(() => checkUrl(new URL('http://[::1]:9/'), policy));
  t.throws(() => checkAddress('10.0.0.1', policy, 'other.internal'), /other\.internal resolves to 10\.0\.0\.1/);
});

t.test('host names are checked through every address they resolve to', async (t) => {
  await t.rejects(resolveChecked('localhost', strict), SsrfError);
  const ok = await resolveChecked('localhost', { allowPrivateNetworks: false, allowedHosts: ['localhost'] });
  t.ok(ok.length > 0);
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

t.test('delivery: a name resolving to loopback is refused at connect; redirects are re-checked per hop', async (t) => {
  let hits = 0;
  const target = createServer((req, res) => {
    hits++;
    res.end('reached');
  });
  const targetUrl = await listen(target);
  const port = new URL(targetUrl).port;
  const redirector = createServer((req, res) => {
    res.writeHead(307, { location: `${targetUrl}/` }).end();
  });
  const redirectUrl = await listen(redirector);
  t.teardown(() => {
    target.close();
    redirector.close();
  });

  const byName = createWebhookSender(() => strict);
  t.teardown(() => byName.close());
  await t.rejects(
    byName.send(`http://localhost:${port}/`, '{}', {}, 2_000),
    SsrfError,
    'localhost resolves to loopback',
  );
  t.equal(hits, 0);

  // The first hop (localhost) is allowed by name; its redirect to 127.0.0.1 is checked again and refused.
  const first = createWebhookSender(() => ({ allowPrivateNetworks: false, allowedHosts: ['localhost'] }));
  t.teardown(() => first.close());
  const viaName = redirectUrl.replace('127.0.0.1', 'localhost');
  await t.rejects(first.send(`${viaName}/hook`, '{}', {}, 2_000), SsrfError, 'redirect to a private address refused');
  t.equal(hits, 0, 'the private target was never reached');

  const open = createWebhookSender(() => ({ allowPrivateNetworks: true, allowedHosts: [] }));
  t.teardown(() => open.close());
  t.match(
    await open.send(`${viaName}/hook`, '{}', {}, 2_000),
    { status: 200, answer: 'reached' },
    'followed when allowed',
  );
  t.equal(hits, 1);
});
