import ipaddr from 'ipaddr.js';

// The network a client address stands for when counting its failures: an IPv6 client per /64 (one
// host is routinely given a whole /64, and rotating through it must not reset a count).
export function clientNetwork(clientIp: string): string {
  if (!ipaddr.isValid(clientIp)) return clientIp;
  const addr = ipaddr.process(clientIp);
  if (addr.kind() === 'ipv4') return addr.toString();
  return `${(addr as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((p) => p.toString(16))
    .join(':')}::/64`;
}
