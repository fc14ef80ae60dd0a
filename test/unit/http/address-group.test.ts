import { describe, expect, it } from 'vitest';
import { addressGroup } from '../../../src/http/address-group.ts';

describe('addressGroup', () => {
  it('keeps IPv4 addresses, and maps IPv4-mapped IPv6 to them in every spelling', () => {
    expect(addressGroup('203.0.113.9')).toBe('203.0.113.9');
    expect(addressGroup('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(addressGroup('::FFFF:cb00:7109')).toBe('203.0.113.9');
    // How uWS reports IPv4 clients on a dual-stack (`::`) listener.
    expect(addressGroup('0000:0000:0000:0000:0000:ffff:7f00:0001')).toBe('127.0.0.1');
    expect(addressGroup('0000:0000:0000:0000:0000:ffff:7f00:0002')).toBe('127.0.0.2');
  });

  it('groups IPv6 addresses by /64, however they are written', () => {
    const group = '2001:db8:aa:1::/64';
    expect(addressGroup('2001:db8:aa:1::1')).toBe(group);
    expect(addressGroup('2001:0db8:00aa:0001:ffff:ffff:ffff:ffff')).toBe(group);
    expect(addressGroup('2001:DB8:AA:1:0:0:0:2')).toBe(group);
    expect(addressGroup('2001:db8:aa:2::1')).not.toBe(group);
    expect(addressGroup('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressGroup('::1')).toBe('0:0:0:0::/64');
    expect(addressGroup('0000:0000:0000:0000:0000:0000:0000:0001')).toBe('0:0:0:0::/64');
    expect(addressGroup('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(addressGroup('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('groups alike after more distinct addresses than its cache holds, and after it starts over', () => {
    for (let round = 0; round < 2; round++) {
      for (let host = 0; host < 5_000; host++) {
        expect(addressGroup(`2001:db8:${(host % 7).toString(16)}:1::${host.toString(16)}`)).toBe(`2001:db8:${(host % 7).toString(16)}:1::/64`);
      }
    }
  });

  it('leaves anything else alone', () => {
    expect(addressGroup('')).toBe('');
    expect(addressGroup('not-an-address')).toBe('not-an-address');
  });
});
