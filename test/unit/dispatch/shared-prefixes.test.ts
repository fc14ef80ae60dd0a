// The shared prefixes remembered per upstream: by upstream, bounded, the least recently sent forgotten first.
import { describe, expect, it } from 'vitest';
import type { UpstreamConfig } from '../../../src/config/config-types.ts';
import { SharedPrefixes } from '../../../src/dispatch/shared-prefixes.ts';

const a = { baseUrl: 'http://a/v1' } as UpstreamConfig;
const b = { baseUrl: 'http://b/v1' } as UpstreamConfig;

describe('SharedPrefixes', () => {
  it('knows a prefix only on the upstreams it was sent to', () => {
    const prefixes = new SharedPrefixes(4);
    prefixes.sent(a, 11);
    expect(prefixes.has(a, 11)).toBe(true);
    expect(prefixes.has(b, 11)).toBe(false);
    expect(prefixes.has(a, 12)).toBe(false);
  });

  it('forgets the least recently sent prefix past its capacity per upstream', () => {
    const prefixes = new SharedPrefixes(2);
    prefixes.sent(a, 1);
    prefixes.sent(a, 2);
    prefixes.sent(a, 1);
    prefixes.sent(a, 3);
    expect([1, 2, 3].map((prefix) => prefixes.has(a, prefix))).toEqual([true, false, true]);
  });
});
