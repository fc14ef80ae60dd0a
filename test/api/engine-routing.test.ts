// A model whose upstreams are vLLM engines, on the default engine-signal settings: requests go to the
// engine that is not saturated and follow the engines' load as it changes, a conversation keeps to
// its engine, and failover still takes a failed attempt to another engine.
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config/config-file.ts';
import { startGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import { type Behavior, type MockUpstream, startMockUpstream } from '../helpers/mock-upstream.ts';
import { type VllmLoad, vllmMetricsText } from '../helpers/mock-upstream-vllm.ts';

const started: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((item) => item.close()));
});

const IDLE: VllmLoad = { waiting: 0, running: 2, kvCacheUsage: 0.1 };
const SATURATED: VllmLoad = { waiting: 40, running: 64, kvCacheUsage: 0.97 };

interface Engine {
  readonly mock: MockUpstream;
  load: VllmLoad;
}

async function engine(load: VllmLoad, behavior?: Behavior): Promise<Engine> {
  const state = { load } as Engine;
  const mock = await startMockUpstream({ metrics: () => vllmMetricsText(state.load), defaultBehavior: behavior });
  started.push(mock);
  return Object.assign(state, { mock });
}

async function gatewayOver(engines: Engine[]) {
  const models: ConfigFile['models'] = {
    m: { upstreams: engines.map((each) => ({ baseUrl: each.mock.baseUrl, model: 'mock-model', engine: 'vllm' as const })) },
  };
  const gateway = await startGateway({ engine: { threads: 1 }, models }, { env: { MUNJA_METRICS_PORT: '0' } });
  started.push(gateway);
  const { key } = await gateway.createKey();
  const metrics = async () => (await fetch(`http://127.0.0.1:${gateway.app.metricsPort}/metrics`)).text();
  return Object.assign(async (overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
    const response = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: chatBody({ model: 'm', ...overrides }),
    });
    expect(response.status).toBe(200);
    await response.json();
  }, { metrics });
}

const served = (each: Engine) => each.mock.totals.requests;

describe('engine-aware routing through the gateway', () => {
  it('sends requests to the unsaturated engine, and follows the load when it moves', async () => {
    const busy = await engine(SATURATED);
    const idle = await engine(IDLE);
    const post = await gatewayOver([busy, idle]);
    // Until the first samples arrive both engines count as saturated; then only `idle` is chosen.
    await expect.poll(async () => {
      busy.mock.reset();
      idle.mock.reset();
      for (let i = 0; i < 5; i++) await post();
      return served(idle);
    }).toBe(5);
    busy.load = IDLE;
    idle.load = SATURATED;
    await expect.poll(async () => {
      busy.mock.reset();
      idle.mock.reset();
      for (let i = 0; i < 5; i++) await post();
      return served(busy);
    }).toBe(5);
    // The engines' last samples, by origin.
    const text = await post.metrics();
    const origin = new URL(idle.mock.baseUrl).origin;
    expect(text).toContain(`munja_upstream_engine_requests_waiting{origin="${origin}",engine="vllm"} 40`);
    expect(text).toContain(`munja_upstream_engine_kv_cache_usage{origin="${origin}",engine="vllm"} 0.97`);
    expect(text).toContain(`munja_upstream_engine_stale{origin="${origin}",engine="vllm"} 0`);
    expect(text).toMatch(/^munja_upstream_engine_poll_failures_total 0$/m);
  });

  it('a conversation keeps to one engine while the engines are idle', async () => {
    const engines = [await engine(IDLE), await engine(IDLE), await engine(IDLE)];
    const post = await gatewayOver(engines);
    // Wait until every engine has a sample (before that each counts as saturated and no home is kept).
    await expect.poll(async () => {
      for (const each of engines) each.mock.reset();
      for (let turn = 0; turn < 4; turn++) await post({ prompt_cache_key: 'session-1' });
      return engines.map(served).sort();
    }).toEqual([0, 0, 4]);
    for (const each of engines) each.mock.reset();
    for (let session = 0; session < 30; session++) await post({ prompt_cache_key: `session-${session}`, messages: [{ role: 'user', content: `turn of ${session}` }] });
    // Thirty conversations hash over all three engines.
    expect(engines.map(served).every((count) => count > 0)).toBe(true);
  });

  it('an x-munja-session header keeps a conversation to one engine, whatever its body says', async () => {
    const engines = [await engine(IDLE), await engine(IDLE), await engine(IDLE)];
    const post = await gatewayOver(engines);
    // Every turn has another prompt and user: only the header ties them together.
    await expect.poll(async () => {
      for (const each of engines) each.mock.reset();
      for (let turn = 0; turn < 8; turn++) {
        await post({ user: `user-${turn}`, messages: [{ role: 'user', content: `turn ${turn}` }] }, { 'x-munja-session': 'agent-run-1' });
      }
      return engines.map(served).sort();
    }).toEqual([0, 0, 8]);
  });

  it('failover still works: a failed attempt on the less loaded engine is retried on the other', async () => {
    const failing = await engine(IDLE, { kind: 'status', status: 503 });
    const healthy = await engine({ waiting: 0, running: 8, kvCacheUsage: 0.5 });
    const post = await gatewayOver([failing, healthy]);
    // Once the samples are in, new conversations go to the less loaded, failing engine unless
    // consistent hashing homes them on the other; each request still succeeds (post checks the 200).
    let posted = 0;
    await expect.poll(async () => {
      await post({ user: `user-${posted}` });
      posted++;
      return served(failing);
    }).toBeGreaterThan(0);
    expect(served(healthy)).toBe(posted);
  });
});
