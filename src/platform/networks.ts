import ipaddr from 'ipaddr.js';

export type Network = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses addresses and CIDR ranges; a bare address is a /32 or /128. Throws on a bad entry. */
export function parseNetworks(entries: readonly string[]): Network[] {
  return entries.map((entry) => {
    try {
      // IPv4 only in dotted four-part decimal: ipaddr.js also takes legacy forms ('10.0.0', '127.1', hex, and
      // octal '010.0.0.0' = 8.0.0.0), which would silently allow another network than the operator meant.
      const text = entry.includes('/') ? entry.slice(0, entry.indexOf('/')) : entry;
      if (!text.includes(':') && !ipaddr.IPv4.isValidFourPartDecimal(text)) throw new Error('not four-part decimal');
      if (entry.includes('/')) {
        const [addr, bits] = ipaddr.parseCIDR(entry);
        return [normalise(addr), addr.kind() === 'ipv6' && normalise(addr).kind() === 'ipv4' ? bits - 96 : bits];
      }
      const addr = normalise(ipaddr.parse(entry));
      return [addr, addr.kind() === 'ipv4' ? 32 : 128];
    } catch {
      throw new Error(`'${entry}' is not an IPv4 or IPv6 address or CIDR range`);
    }
  });
}

/** IPv4-mapped IPv6 (`::ffff:10.0.0.1`) is treated as the IPv4 address it carries. */
function normalise(addr: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress())
    return (addr as ipaddr.IPv6).toIPv4Address();
  return addr;
}

export function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  try {
    return normalise(ipaddr.parse(address));
  } catch {
    return undefined;
  }
}

export function addressAllowed(address: string | undefined, networks: readonly Network[]): boolean {
  if (address === undefined) return false;
  const addr = parseAddress(address);
  if (!addr) return false;
  for (const [range, bits] of networks) {
    if (range.kind() === addr.kind() && addr.match(range, bits)) return true;
  }
  return false;
}
