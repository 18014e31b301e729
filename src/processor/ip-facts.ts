import { lookup } from 'geoip-country';
import ipaddr from 'ipaddr.js';

// Where an IP is, from the GeoLite2 country data geoip-country ships (read from disk once, no
// network). Private, loopback and unknown addresses have no country.
export function ipCountry(ip: string): string | null {
  try {
    return lookup(ipaddr.process(ip).toString())?.country ?? null;
  } catch {
    return null;
  }
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
