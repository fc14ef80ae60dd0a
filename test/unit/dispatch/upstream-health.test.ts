import { describe, expect, it } from 'vitest';
import type { ResilienceConfig, UpstreamConfig } from '../../../src/config/config-types.ts';
import { UpstreamHealth } from '../../../src/dispatch/upstream-health.ts';

const SETTINGS: ResilienceConfig = {
  retry: { budgetPercent: 10, reserve: 10, backoffMs: 0 },
  breaker: { consecutiveFailures: 3, ejectMs: 1_000 },
  rateLimitBackoffMaxMs: 5_000,
};

function upstream(name: string, weight = 1): UpstreamConfig {
  return { baseUrl: `http://${name}/v1`, origin: `http://${name}`, chatPath: '/v1/chat/completions', responsesPath: '/v1/responses', messagesPath: '/v1/messages', api: ['chat'], model: name, apiKey: null, weight, maxConnections: 1 };
}

function setup() {
  const clock = { now: 0 };
  const health = new UpstreamHealth(SETTINGS, () => clock.now);
  const fail = (target: UpstreamConfig, times = 1) => {
    for (let index = 0; index < times; index++) {
      health.begin(target);
      health.end(target, 'failed');
    }
  };
  return { clock, health, fail };
}

describe('UpstreamHealth', () => {
  it('picks by weight among healthy upstreams', () => {
    const { health } = setup();
    const a = upstream('a', 1);
    const b = upstream('b', 3);
    expect(health.pick([a, b], null, () => 0.2)).toBe(a);
    expect(health.pick([a, b], null, () => 0.3)).toBe(b);
    expect(health.pick([a, b], a)).toBe(b);
  });

  it('lays out the weights of the healthy upstreams only: an excluded or ejected one takes no share', () => {
    const { health, fail } = setup();
    const a = upstream('a', 1);
    const b = upstream('b', 5);
    const c = upstream('c', 2);
    const d = upstream('d', 7);
    fail(b, 3);
    // a and c share 3: below 1 is a, the rest c.
    expect(health.pick([a, b, c, d], d, () => 0.3)).toBe(a);
    expect(health.pick([a, b, c, d], d, () => 0.34)).toBe(c);
    expect(health.pick([a, b, c, d], d, () => 0.99)).toBe(c);
  });

  it('ejects after consecutive failures only; a success in between resets the count', () => {
    const { health, fail } = setup();
    const a = upstream('a');
    fail(a, 2);
    health.begin(a);
    health.end(a, 'healthy');
    fail(a, 2);
    expect(health.isHealthy(a)).toBe(true);
    fail(a);
    expect(health.isHealthy(a)).toBe(false);
    expect(health.pick([a])).toBeNull();
    expect(health.stats()).toEqual({ ejections: 1, restorations: 0, ejected: 1 });
  });

  it('after the ejection time lets exactly one trial through, which restores the upstream', () => {
    const { clock, health, fail } = setup();
    const a = upstream('a');
    fail(a, 3);
    expect(health.msUntilRetry([a])).toBe(1_000);
    clock.now = 1_000;
    expect(health.pick([a])).toBe(a);
    health.begin(a);
    expect(health.pick([a])).toBeNull(); // the trial is in flight
    health.end(a, 'healthy');
    expect(health.pick([a])).toBe(a);
    expect(health.stats()).toEqual({ ejections: 1, restorations: 1, ejected: 0 });
  });

  it('a failed trial ejects again for the full time', () => {
    const { clock, health, fail } = setup();
    const a = upstream('a');
    fail(a, 3);
    clock.now = 1_500;
    expect(health.pick([a])).toBe(a);
    fail(a);
    expect(health.pick([a])).toBeNull();
    expect(health.msUntilRetry([a])).toBe(1_000);
    clock.now = 2_500;
    expect(health.pick([a])).toBe(a);
  });

  it('a trial the client abandoned decides nothing: the next request probes again', () => {
    const { clock, health, fail } = setup();
    const a = upstream('a');
    fail(a, 3);
    clock.now = 1_000;
    health.begin(a);
    health.end(a, 'unknown');
    expect(health.isHealthy(a)).toBe(false);
    expect(health.pick([a])).toBe(a);
  });

  it('passes over an upstream that answered 429 while another can serve, for its Retry-After (capped)', () => {
    const { clock, health } = setup();
    const a = upstream('a', 1_000_000);
    const b = upstream('b', 1);
    health.begin(a);
    health.end(a, 'rate-limited', 60_000);
    expect(health.pick([a, b], null, () => 0)).toBe(b);
    // With no alternative it is still used: the upstream decides.
    expect(health.pick([a])).toBe(a);
    clock.now = 5_000;
    expect(health.pick([a, b], null, () => 0)).toBe(a);
  });

  it('prefers a due trial over an upstream backing off, and both over nothing', () => {
    const { clock, health, fail } = setup();
    const a = upstream('a');
    const b = upstream('b');
    fail(a, 3);
    health.begin(b);
    health.end(b, 'rate-limited', 4_000);
    expect(health.pick([a, b])).toBe(b);
    clock.now = 1_000;
    expect(health.pick([a, b])).toBe(a);
  });
});
