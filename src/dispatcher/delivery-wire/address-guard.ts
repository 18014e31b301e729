import ipaddr from 'ipaddr.js';

// SSRF guard: a callback may only reach a public unicast address. Everything ipaddr.js classifies
// otherwise (loopback, private, link-local, unique-local, unspecified, carrier-grade NAT, multicast,
// reserved, and IPv6 ranges that embed IPv4 such as 6to4 or NAT64) is refused. IPv4-mapped IPv6 is
// judged as the IPv4 address it carries. ipaddr.js calls some IPv6 addresses outside global unicast
// "unicast" (IPv4-compatible ::/96, deprecated, where ::7f00:1 is 127.0.0.1 on some stacks; the
// unassigned space), so an IPv6 address must also be in 2000::/3.
// Returns the name of the refused range, or null when the address may be called.
export function refusedAddressRange(ip: string): string | null {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(ip);
  } catch {
    return 'invalid';
  }
  const range = addr.range();
  if (range !== 'unicast') return range;
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    if (!v6.match(GLOBAL_UNICAST)) return v6.match(IPV4_COMPATIBLE) ? 'ipv4Compatible' : 'notGlobalUnicast';
  }
  return null;
}

const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');
