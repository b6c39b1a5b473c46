import { describe, expect, it } from 'vitest';
import { addressProblem, classifyAddress, literalHostProblem, type AddressClass } from '../../shared/http/address-policy';

/** docs/security.md, section 3: the address classifier the SSRF guard decides with (IANA special-purpose registries). */
describe('classifyAddress', () => {
  const cases: Array<[string, AddressClass]> = [
    // IPv4
    ['8.8.8.8', 'public'],
    ['140.82.112.6', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['100.128.0.1', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['169.254.1.1', 'link_local'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    // IPv6
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['2606:4700::1111', 'public'],
    ['2a00:1450:4001:80b::200e', 'public'],
    ['fe80::1', 'link_local'],
    ['febf::1', 'link_local'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fd00:ec2::254', 'metadata'],
    ['[fd00:ec2::254]', 'metadata'],
    ['fd00:ec2:0:0:0:0:0:254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2001:0:4136:e378::1', 'reserved'],
    ['100::1', 'reserved'],
    ['fec0::1', 'reserved'],
    // IPv4 inside IPv6: judged by the IPv4 it carries.
    ['::ffff:169.254.169.254', 'metadata'],
    ['[::ffff:a9fe:a9fe]', 'metadata'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::169.254.169.254', 'metadata'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b:1::a00:1', 'private'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:0808:0808::1', 'public'],
    // Not addresses.
    ['example.com', 'invalid'],
    ['1.2.3', 'invalid'],
    ['01.2.3.4', 'invalid'],
    ['256.1.1.1', 'invalid'],
    ['fe80::1%eth0', 'invalid'],
    ['1::2::3', 'invalid'],
    ['1:2:3:4:5:6:7:8:9', 'invalid'],
  ];
  it.each(cases)('%s is %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });
});

describe('addressProblem', () => {
  const none = { allowLoopback: false, allowPrivate: false };
  it('lets public addresses through under every policy', () => {
    expect(addressProblem('140.82.112.6', none)).toBeUndefined();
    expect(addressProblem('2606:4700::1111', none)).toBeUndefined();
  });

  it('refuses private and loopback unless the policy opens them, naming the setting', () => {
    expect(addressProblem('10.0.0.5', none)).toMatch(/private.*GITHUB_ALLOWED_PRIVATE_HOSTS/);
    expect(addressProblem('127.0.0.1', none)).toMatch(/loopback/);
    expect(addressProblem('127.0.0.1', { allowLoopback: true, allowPrivate: false })).toBeUndefined();
    expect(addressProblem('10.0.0.5', { allowLoopback: true, allowPrivate: false })).toMatch(/private/);
    expect(addressProblem('10.0.0.5', { allowLoopback: false, allowPrivate: true })).toBeUndefined();
    expect(addressProblem('fd12::1', { allowLoopback: false, allowPrivate: true })).toBeUndefined();
  });

  it('never opens metadata, link-local, unspecified, multicast, broadcast or reserved addresses', () => {
    const all = { allowLoopback: true, allowPrivate: true };
    for (const ip of [
      '169.254.169.254',
      '::ffff:169.254.169.254',
      'fd00:ec2::254',
      '169.254.1.1',
      'fe80::1',
      '0.0.0.0',
      '::',
      '224.0.0.1',
      '255.255.255.255',
      '2001:db8::1',
      'not-an-ip',
    ]) {
      expect(addressProblem(ip, all), ip).toMatch(/never reachable/);
    }
  });
});

describe('literalHostProblem (the apiBaseUrl schema)', () => {
  it('refuses the literals no setting opens and leaves names, public, private and loopback literals to the resolved-address check', () => {
    expect(literalHostProblem('[::ffff:a9fe:a9fe]')).toMatch(/metadata/);
    expect(literalHostProblem('0.0.0.0')).toMatch(/unspecified/);
    expect(literalHostProblem('[fe80::1]')).toMatch(/link-local/);
    expect(literalHostProblem('ghe.example.com')).toBeUndefined();
    expect(literalHostProblem('10.0.0.1')).toBeUndefined();
    expect(literalHostProblem('127.0.0.1')).toBeUndefined();
  });
});
