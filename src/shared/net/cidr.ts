import ipaddr from 'ipaddr.js';

export type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

// "10.0.0.0/8", "2001:db8::/32" or a bare address (a /32 or /128).
export function parseCidr(text: string): Cidr | null {
  try {
    if (text.includes('/')) return ipaddr.parseCIDR(text);
    const addr = ipaddr.parse(text);
    return [addr, addr.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return null;
  }
}

export function ipInRanges(ip: string, ranges: readonly string[]): string | null {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(ip);
  } catch {
    return null;
  }
  for (const text of ranges) {
    const range = parseCidr(text);
    if (range && range[0].kind() === addr.kind() && addr.match(range)) return text;
  }
  return null;
}
