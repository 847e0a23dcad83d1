// Outbound URL rules for webhook deliveries (SSRF). A host is resolved with node:dns lookup (every address) and
// refused when any address is not public unicast: loopback, link-local, private, unique-local, CGNAT, multicast,
// unspecified, broadcast, reserved, and the IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4, Teredo). A
// host whose answers mix public and private addresses is refused whole (DNS rebinding). The connection uses the
// addresses checked here — this lookup is the socket's own lookup — so no second resolution can swap them.
// `webhooks.allow_private_networks` lifts the rule; `webhooks.allowed_hosts` lifts it for named hosts or ranges.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { addressAllowed, parseAddress, parseNetworks, type Network } from '../../platform/networks.ts';

export interface SsrfPolicy {
  allowPrivateNetworks: boolean;
  /** Host names (exact, case-insensitive), addresses or CIDR ranges. */
  allowedHosts: readonly string[];
}

export class SsrfError extends Error {
  readonly code = 'ERR_WEBHOOK_SSRF';
  override name = 'SsrfError';
}

/** The ipaddr.js range name when the address is not public unicast, else undefined. Unparseable: 'invalid'. */
export function blockedRange(address: string): string | undefined {
  const addr = parseAddress(address.replace(/^\[|\]$/g, ''));
  if (!addr) return 'invalid';
  const range = addr.range();
  return range === 'unicast' ? undefined : range;
}

function split(allowedHosts: readonly string[]): { names: Set<string>; networks: Network[] } {
  const names = new Set<string>();
  const networks: Network[] = [];
  for (const entry of allowedHosts) {
    const bare = entry.replace(/^\[|\]$/g, '');
    if (isIP(bare.split('/')[0]!) !== 0) networks.push(...parseNetworks([bare]));
    else names.add(bare.toLowerCase());
  }
  return { names, networks };
}

/** Whether a host name (as in the URL) is exempt from the address rule. */
export function hostExempt(hostname: string, policy: SsrfPolicy): boolean {
  if (policy.allowPrivateNetworks) return true;
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const { names, networks } = split(policy.allowedHosts);
  if (names.has(host)) return true;
  return isIP(host) !== 0 && addressAllowed(host, networks);
}

/** Throws SsrfError unless the address may be reached (the host name, when given, may be exempt). */
export function checkAddress(address: string, policy: SsrfPolicy, hostname?: string): void {
  if (hostExempt(hostname ?? address, policy)) return;
  const { networks } = split(policy.allowedHosts);
  if (addressAllowed(address, networks)) return;
  const range = blockedRange(address);
  if (range)
    throw new SsrfError(
      `refused: ${hostname && hostname !== address ? `${hostname} resolves to ` : ''}${address}, a ${range} address (webhooks.allow_private_networks is off)`,
    );
}

/** Checks a URL before a request: http(s) only, and an address literal at once (sockets do no lookup for those). */
export function checkUrl(url: URL, policy: SsrfPolicy): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SsrfError(`refused: ${url.protocol} URLs cannot receive webhooks`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) checkAddress(host, policy);
}

/** Resolves every address of the host and checks each one. */
export function resolveChecked(hostname: string, policy: SsrfPolicy, family = 0): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, family }, (err, addresses) => {
      if (err) return reject(err);
      try {
        for (const a of addresses) checkAddress(a.address, policy, hostname);
        resolve(addresses);
      } catch (refused) {
        reject(refused);
      }
    });
  });
}

type LookupCallback = (err: Error | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for net/tls.connect (through undici's `connect` options) that only hands out checked addresses. */
export function checkedLookup(policy: () => SsrfPolicy) {
  return (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void => {
    const family =
      options.family === 'IPv6' || options.family === 6 ? 6 : options.family === 'IPv4' || options.family === 4 ? 4 : 0;
    resolveChecked(hostname, policy(), family).then(
      (addresses) =>
        options.all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family),
      (err: Error) => callback(err, ''),
    );
  };
}
