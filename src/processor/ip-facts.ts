import ipaddr from 'ipaddr.js';

type GeoIp = typeof import('geoip-country');
let geoip: GeoIp | null = null;

// Where an IP is, from the GeoLite2 country data geoip-country ships (no network). The data (~25 MB
// in memory) is read from disk on the first look-up, so only a process that runs the processor
// role pays for it, not every role that imports this module.
export function ipCountry(ip: string): string | null {
  geoip ??= require('geoip-country') as GeoIp;
  let addr: string;
  try {
    addr = ipaddr.process(ip).toString();
  } catch {
    return null;
  }
  return geoip.lookup(addr)?.country ?? null;
}

// The subnet a burst is counted over: the /24 of an IPv4 address, the /48 of an IPv6 one (one
// site's allocation); an IPv4-mapped IPv6 address counts as its IPv4 address.
export function subnetOf(ip: string): string | null {
  try {
    const addr = ipaddr.process(ip);
    if (addr.kind() === 'ipv4') return `${addr.toByteArray().slice(0, 3).join('.')}.0/24`;
    const parts = (addr as ipaddr.IPv6).parts.slice(0, 3).map((p) => p.toString(16));
    return `${parts.join(':')}::/48`;
  } catch {
    return null;
  }
}
