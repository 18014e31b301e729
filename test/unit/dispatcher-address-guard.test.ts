import { refusedAddressRange } from '../../src/dispatcher/delivery-wire/address-guard';
import { readTaskHeaders, taskHeaders } from '../../src/dispatcher/delivery-task';

describe('SSRF address guard', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['2002:7f00:1::', '6to4'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['not-an-ip', 'invalid'],
    // IPv4-compatible IPv6 (::/96, deprecated): ::7f00:1 is 127.0.0.1 on some stacks.
    ['::7f00:1', 'ipv4Compatible'],
    ['::a00:1', 'ipv4Compatible'],
    ['::808:808', 'ipv4Compatible'],
    // Outside 2000::/3, which ipaddr.js calls unicast; and IANA special-purpose ranges it names.
    ['4000::1', 'notGlobalUnicast'],
    ['e000::1', 'notGlobalUnicast'],
    ['2001:5::1', 'reserved'],
    ['2001:4:112::1', 'as112v6'],
    ['2001:db8::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['5f00::1', 'segmentRouting'],
    ['2001:2::1', 'benchmarking'],
    ['2001::1', 'teredo'],
  ])('refuses %s (%s)', (ip, range) => expect(refusedAddressRange(ip)).toBe(range));

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows public %s', (ip) =>
    expect(refusedAddressRange(ip)).toBeNull(),
  );
});

describe('delivery task headers', () => {
  it('round-trip due time and attempt', () => {
    const headers = Object.fromEntries(
      Object.entries(taskHeaders({ dueAt: 1_767_225_600_123, attempt: 3 })).map(([k, v]) => [k, Buffer.from(v)]),
    );
    expect(readTaskHeaders(headers)).toEqual({ dueAt: 1_767_225_600_123, attempt: 3 });
  });
  it('reject missing or malformed headers', () => {
    expect(readTaskHeaders(undefined)).toBeNull();
    expect(readTaskHeaders({ 'x-due-at': '12' })).toBeNull();
    expect(readTaskHeaders({ 'x-due-at': 'soon', 'x-attempt': '2' })).toBeNull();
  });
});
