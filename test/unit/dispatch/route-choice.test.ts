import { describe, expect, it } from 'vitest';
import type { ModelConfig, ResilienceConfig, UpstreamConfig } from '../../../src/config/config-types.ts';
import { InFlight } from '../../../src/dispatch/in-flight.ts';
import { UpstreamHealth } from '../../../src/dispatch/upstream-health.ts';
import { RouteChoice } from '../../../src/models/route-choice.ts';

const SETTINGS: ResilienceConfig = {
  retry: { budgetPercent: 10, reserve: 10, backoffMs: 0 },
  breaker: { consecutiveFailures: 1, ejectMs: 60_000 },
  rateLimitBackoffMaxMs: 5_000,
};

function upstream(name: string): UpstreamConfig {
  return { baseUrl: `http://${name}/v1`, origin: `http://${name}`, chatPath: '/v1/chat/completions', responsesPath: '/v1/responses', messagesPath: '/v1/messages', api: ['chat'], model: name, apiKey: null, weight: 1, maxConnections: 1 };
}

const MODEL_SUPPORT = { tools: true, responseFormat: true, contentParts: false };

function model(id: string, target: ModelConfig['target']): ModelConfig {
  return { id, ownedBy: 'test', description: '', contextTokens: 1000, maxOutputTokens: 100, defaultMaxTokens: 10, supports: MODEL_SUPPORT, target };
}

function setup() {
  const health = new UpstreamHealth(SETTINGS);
  const inFlight = new InFlight();
  const routes = new RouteChoice(health, inFlight);
  const a1 = upstream('a1');
  const a2 = upstream('a2');
  const b1 = upstream('b1');
  const a = model('a', { kind: 'upstreams', upstreams: [a1, a2] });
  const b = model('b', { kind: 'upstreams', upstreams: [b1] });
  const local = model('local', { kind: 'local', language: 'en', latency: { timeToFirstTokenMs: 0, tokensPerSecond: 0 } });
  return { health, inFlight, routes, a, b, local, a1, a2, b1 };
}

describe('RouteChoice least-outstanding', () => {
  it('takes the candidate whose least-busy healthy upstream has the fewest in flight; ties go first', () => {
    const { routes, inFlight, a, b, a1, a2, b1 } = setup();
    const auto = { publicId: 'auto', candidates: [a, b], policy: 'least-outstanding' as const };
    expect(routes.serve(auto)).toBe(a);
    inFlight.begin(a1);
    inFlight.begin(a2);
    expect(routes.serve(auto)).toBe(b);
    inFlight.begin(b1);
    inFlight.begin(b1);
    expect(routes.serve(auto)).toBe(a);
    inFlight.end(a2);
    expect(routes.serve(auto)).toBe(a);
  });

  it('skips a candidate whose upstreams are all ejected, and counts the local engine per model', () => {
    const { routes, health, inFlight, a, local, a1, a2 } = setup();
    const auto = { publicId: 'auto', candidates: [a, local], policy: 'least-outstanding' as const };
    inFlight.begin(local);
    expect(routes.serve(auto)).toBe(a);
    for (const target of [a1, a2]) {
      health.begin(target);
      health.end(target, 'failed');
    }
    expect(routes.serve(auto)).toBe(local);
  });

  it('`first` takes the first candidate with a healthy upstream, whatever the load', () => {
    const { routes, health, inFlight, a, b, a1, a2 } = setup();
    const auto = { publicId: 'auto', candidates: [a, b], policy: 'first' as const };
    inFlight.begin(a1);
    inFlight.begin(a2);
    expect(routes.serve(auto)).toBe(a);
    for (const target of [a1, a2]) {
      health.begin(target);
      health.end(target, 'failed');
    }
    expect(routes.serve(auto)).toBe(b);
  });

  it('with nothing healthy, the first candidate answers', () => {
    const { routes, health, a, b, a1, a2, b1 } = setup();
    for (const target of [a1, a2, b1]) {
      health.begin(target);
      health.end(target, 'failed');
    }
    expect(routes.serve({ publicId: 'auto', candidates: [a, b], policy: 'least-outstanding' })).toBe(a);
  });
});
