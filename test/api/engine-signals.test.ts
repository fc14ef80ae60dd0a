// Engine signals polled from a real HTTP mock that publishes vLLM's metric names: the load read,
// this process's requests in flight beyond the sample's, staleness after three missed polls, missing and flapping metrics,
// and a hanging metrics page bounded by the poll's timeout. Time is a hand-moved clock, never a sleep.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelConfig, UpstreamConfig } from '../../src/config/config-types.ts';
import { DEFAULT_ENGINE_SATURATION, DEFAULT_ENGINE_SIGNALS } from '../../src/config/default-config.ts';
import { EngineSignals } from '../../src/upstream/engine-signals.ts';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import { type VllmLoad, vllmMetricsText } from '../helpers/mock-upstream-vllm.ts';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

function upstreamAt(baseUrl: string, engine: UpstreamConfig['engine'] = 'vllm'): UpstreamConfig {
  const url = new URL(baseUrl);
  return {
    baseUrl, origin: url.origin, chatPath: '/v1/chat/completions', responsesPath: '/v1/responses', messagesPath: '/v1/messages', api: ['chat'],
    model: 'mock-model', apiKey: null, weight: 1, maxConnections: 64, engine, saturation: DEFAULT_ENGINE_SATURATION,
  };
}

function modelOf(upstreams: UpstreamConfig[]): ModelConfig {
  return {
    id: 'm', ownedBy: 'test', description: '', contextTokens: 1000, maxOutputTokens: 100, defaultMaxTokens: 10,
    supports: { tools: true, responseFormat: true, contentParts: false }, target: { kind: 'upstreams', upstreams, engineAware: true },
  };
}

/** A mock engine whose page is `page()`, and signals on the default settings with a clock the test moves. */
async function engineWith(page: () => string | number, slots?: () => string | number, engine: UpstreamConfig['engine'] = 'vllm') {
  const mock = await startMockUpstream({ metrics: page, slots });
  closers.push(() => mock.close());
  const upstream = upstreamAt(mock.baseUrl, engine);
  const clock = { now: 0 };
  const warnings: string[] = [];
  const log = { warn: (_: object, message: string) => warnings.push(message), info: () => {} };
  const signals = new EngineSignals([modelOf([upstream])], DEFAULT_ENGINE_SIGNALS, log, () => clock.now);
  closers.push(() => signals.close());
  return { mock, upstream, clock, signals, warnings };
}

const slotsPage = (busy: readonly boolean[]) => () => JSON.stringify(busy.map((processing, id) => ({ id, is_processing: processing })));

describe('EngineSignals', () => {
  it("reads a llama.cpp server without --metrics from its /slots: saturated once no slot is idle", async () => {
    let busy = [true, false, false, false];
    const { upstream, signals, warnings } = await engineWith(() => 404, () => slotsPage(busy)(), 'llamacpp');
    await signals.pollOnce();
    expect(signals.load(upstream)).toEqual({ waiting: 0, running: 1, kvCacheUsage: 0, idleSlots: 3 });
    expect(signals.saturation(upstream)).toBe(0.25);
    // This process's requests sent since fill the idle slots, then wait against queueDepth.
    for (let i = 0; i < 3; i++) signals.began(upstream);
    expect(signals.saturation(upstream)).toBe(1);
    signals.began(upstream);
    expect(signals.saturation(upstream)).toBe(1 + 1 / DEFAULT_ENGINE_SATURATION.queueDepth);
    busy = [true, true, true, true];
    await signals.pollOnce();
    expect(signals.saturation(upstream)).toBe(1);
    expect(warnings).toEqual([]);
  });

  it('recognises an `auto` engine by the names on its metrics page, or by its slots, and polls it as that engine', async () => {
    const vllm = await engineWith(() => vllmMetricsText({ waiting: 4, running: 1, kvCacheUsage: 0.1 }), undefined, 'auto');
    // Not yet recognised: no signals (scored by the requests in flight), unlike a declared engine's Infinity.
    expect(vllm.signals.saturation(vllm.upstream)).toBeNull();
    await vllm.signals.pollOnce();
    expect(vllm.signals.saturation(vllm.upstream)).toBe(0.5);
    expect(vllm.signals.stats()).toMatchObject([{ engine: 'vllm', stale: false }]);
    const sglang = await engineWith(() => 'sglang:num_queue_reqs{model_name="m"} 8\nsglang:num_running_reqs{model_name="m"} 3\nsglang:token_usage{model_name="m"} 0.2\n', undefined, 'auto');
    await sglang.signals.pollOnce();
    expect(sglang.signals.load(sglang.upstream)).toEqual({ waiting: 8, running: 3, kvCacheUsage: 0.2 });
    expect(sglang.signals.stats()).toMatchObject([{ engine: 'sglang' }]);
    const llama = await engineWith(() => 404, slotsPage([true, false]), 'auto');
    await llama.signals.pollOnce();
    expect(llama.signals.saturation(llama.upstream)).toBe(0.5);
    expect(llama.signals.stats()).toMatchObject([{ engine: 'llamacpp' }]);
  });

  it('an `auto` engine that shows none of the pages has no signals and is not polled again', async () => {
    let polls = 0;
    const { upstream, signals, warnings } = await engineWith(() => {
      polls++;
      return '# a page of another server\nhttp_requests_total 12\n';
    }, undefined, 'auto');
    await signals.pollOnce();
    await signals.pollOnce();
    expect(polls).toBe(1);
    expect(signals.saturation(upstream)).toBeNull();
    expect(signals.stats()).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('an `auto` engine that cannot be reached at start is tried again at the next poll', async () => {
    let page: string | number = 503;
    const { upstream, signals } = await engineWith(() => page, undefined, 'auto');
    await signals.pollOnce();
    expect(signals.saturation(upstream)).toBeNull();
    page = vllmMetricsText({ waiting: 8, running: 1, kvCacheUsage: 0.1 });
    await signals.pollOnce();
    expect(signals.saturation(upstream)).toBe(1);
  });

  it('reads /slots only for llama.cpp, and only when the metrics page is missing rather than failing', async () => {
    const vllm = await engineWith(() => 404, slotsPage([false]));
    await vllm.signals.pollOnce();
    expect(vllm.signals.saturation(vllm.upstream)).toBe(Infinity);
    const failing = await engineWith(() => 500, slotsPage([false]), 'llamacpp');
    await failing.signals.pollOnce();
    expect(failing.signals.saturation(failing.upstream)).toBe(Infinity);
    expect(failing.signals.failedPolls).toBe(1);
  });

  it('reads the load from the engine and scores the worse of queue and KV cache against the thresholds', async () => {
    let load: VllmLoad = { waiting: 4, running: 10, kvCacheUsage: 0.45 };
    const { upstream, signals } = await engineWith(() => vllmMetricsText(load));
    expect(signals.polled).toBe(1);
    expect(signals.saturation(upstream)).toBe(Infinity);
    await signals.pollOnce();
    expect(signals.load(upstream)).toEqual(load);
    // 4 of 8 waiting, 0.45 of 0.9 cache: half-way either way.
    expect(signals.saturation(upstream)).toBeCloseTo(0.5);
    load = { waiting: 0, running: 30, kvCacheUsage: 0.99 };
    await signals.pollOnce();
    expect(signals.saturation(upstream)).toBeCloseTo(1.1);
  });

  it('counts its requests in flight beyond those at the sample as waiting, until the next sample', async () => {
    const { upstream, signals } = await engineWith(() => vllmMetricsText({ waiting: 0, running: 0, kvCacheUsage: 0 }));
    for (let i = 0; i < 2; i++) signals.began(upstream);
    await signals.pollOnce();
    // The two in flight at the sample are in the engine's own numbers already.
    expect(signals.saturation(upstream)).toBe(0);
    for (let i = 0; i < 8; i++) signals.began(upstream);
    expect(signals.saturation(upstream)).toBe(1);
    // Ends lower the estimate, those of requests the sample saw included.
    for (let i = 0; i < 4; i++) signals.ended(upstream);
    expect(signals.saturation(upstream)).toBe(0.5);
    // The two the sample saw ended too: their batch places take the next one in, which waits for nothing.
    for (let i = 0; i < 6; i++) signals.ended(upstream);
    signals.began(upstream);
    expect(signals.saturation(upstream)).toBe(0);
    signals.began(upstream);
    signals.began(upstream);
    expect(signals.saturation(upstream)).toBe(0.125);
    await signals.pollOnce();
    expect(signals.saturation(upstream)).toBe(0);
  });

  it('an engine sampled saturated is not held full until the next poll while this process\'s requests on it finish', async () => {
    const { upstream, signals } = await engineWith(() => vllmMetricsText({ waiting: 8, running: 8, kvCacheUsage: 0.5 }));
    for (let i = 0; i < 16; i++) signals.began(upstream);
    await signals.pollOnce();
    expect(signals.saturation(upstream)).toBe(1);
    // Each finished request lets one of the waiting ones into the batch.
    for (let i = 0; i < 3; i++) signals.ended(upstream);
    expect(signals.saturation(upstream)).toBe(5 / 8);
    signals.began(upstream);
    expect(signals.saturation(upstream)).toBe(6 / 8);
  });

  it('a sample older than three missed polls counts as saturated', async () => {
    const { upstream, clock, signals } = await engineWith(() => vllmMetricsText({ waiting: 1, running: 1, kvCacheUsage: 0.1 }));
    await signals.pollOnce();
    clock.now = 3 * DEFAULT_ENGINE_SIGNALS.pollMs;
    expect(signals.saturation(upstream)).toBeLessThan(1);
    clock.now = 3 * DEFAULT_ENGINE_SIGNALS.pollMs + 1;
    expect(signals.saturation(upstream)).toBe(Infinity);
  });

  it('missing metrics (404, or a page without the names) leave the engine saturated, with one warning', async () => {
    let page: string | number = 404;
    const { upstream, signals, warnings } = await engineWith(() => page);
    await signals.pollOnce();
    await signals.pollOnce();
    expect(signals.saturation(upstream)).toBe(Infinity);
    page = '# HELP nothing here\nprocess_cpu_seconds_total 1.0\n';
    await signals.pollOnce();
    expect(signals.saturation(upstream)).toBe(Infinity);
    expect(warnings).toHaveLength(1);
  });

  it('flapping metrics: the last good sample stands through fewer than three missed polls, then goes stale', async () => {
    let page: string | number = vllmMetricsText({ waiting: 2, running: 4, kvCacheUsage: 0.2 });
    const { upstream, clock, signals } = await engineWith(() => page);
    const { pollMs } = DEFAULT_ENGINE_SIGNALS;
    await signals.pollOnce();
    for (let round = 1; round <= 6; round++) {
      clock.now = round * pollMs;
      page = round % 2 === 0 ? vllmMetricsText({ waiting: 2, running: 4, kvCacheUsage: 0.2 }) : 500;
      await signals.pollOnce();
      expect(signals.saturation(upstream)).toBeCloseTo(0.25);
    }
    page = 503;
    for (let round = 7; round <= 9; round++) {
      clock.now = round * pollMs;
      await signals.pollOnce();
    }
    expect(signals.saturation(upstream)).toBe(0.25);
    clock.now = 9 * pollMs + 1;
    expect(signals.saturation(upstream)).toBe(Infinity);
  });

  it('a metrics page that never answers ends at the poll timeout as a missed poll', async () => {
    const server: Server = createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(resolve);
    }));
    const { port } = server.address() as AddressInfo;
    const upstream = upstreamAt(`http://127.0.0.1:${port}/v1`);
    const signals = new EngineSignals([modelOf([upstream])], DEFAULT_ENGINE_SIGNALS);
    closers.push(() => signals.close());
    await signals.pollOnce();
    expect(signals.saturation(upstream)).toBe(Infinity);
  });
});
