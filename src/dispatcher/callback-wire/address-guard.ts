import ipaddr from 'ipaddr.js';

// SSRF guard: a callback may only reach a public unicast address. Everything ipaddr.js classifies
// otherwise (loopback, private, link-local, unique-local, unspecified, carrier-grade NAT, multicast,
// reserved, and IPv6 ranges that embed IPv4 such as 6to4 or NAT64) is refused. IPv4-mapped IPv6 is
// judged as the IPv4 address it carries.
// Returns the name of the refused range, or null when the address may be called.
export function refusedAddressRange(ip: string): string | null {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(ip);
  } catch {
    return 'invalid';
  }
  const range = addr.range();
  return range === 'unicast' ? null : range;
}
