// The admission queue through the gateway, on the default queue settings, over a mock vLLM engine
// whose published load the tests set: a request for a saturated model waits and is served once the
// engine frees; it is refused 503 `overloaded` with Retry-After at the deadline, or at once past the
// bound; a client that leaves is never sent; a higher band leaves before a lower one; an upstream is
// full by its maxConcurrent, or a llama.cpp server by its busy slots.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { Agent, fetch as fetchFrom } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config/config-file.ts';
import { DEFAULT_QUEUE } from '../../src/config/default-config.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import { type MockUpstream, startMockUpstream } from '../helpers/mock-upstream.ts';
import { type VllmLoad, vllmMetricsText } from '../helpers/mock-upstream-vllm.ts';

const started: Array<{ close(): Promise<void> }> = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((item) => item.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const IDLE: VllmLoad = { waiting: 0, running: 2, kvCacheUsage: 0.1 };
const SATURATED: VllmLoad = { waiting: 40, running: 64, kvCacheUsage: 0.97 };
/** One request short of the default saturation (8 waiting): room for one more at a time. */
const ONE_SLOT: VllmLoad = { waiting: 7, running: 64, kvCacheUsage: 0.5 };

interface Engine {
  readonly mock: MockUpstream;
  load: VllmLoad;
}

async function engine(load: VllmLoad): Promise<Engine> {
  const state = { load } as Engine;
  const mock = await startMockUpstream({ metrics: () => vllmMetricsText(state.load) });
  started.push(mock);
  return Object.assign(state, { mock });
}

function modelsOver(each: Engine): ConfigFile['models'] {
  return { m: { upstreams: [{ baseUrl: each.mock.baseUrl, model: 'mock-model', engine: 'vllm' as const }] } };
}

async function gatewayOver(each: Engine, config: ConfigFile = {}, options: { dataDir?: string; logTo?: NodeJS.WritableStream; spanProcessor?: SimpleSpanProcessor } = {}) {
  const env = { MUNJA_METRICS_PORT: '0', LOG_LEVEL: 'info', ...(options.spanProcessor === undefined ? {} : { OTEL_TRACES_EXPORTER: 'otlp' }) };
  const gateway = await startGateway({ engine: { threads: 1 }, models: modelsOver(each), ...config }, { ...options, env });
  started.push(gateway);
  return gateway;
}

function client(gateway: TestGateway) {
  const metrics = async () => (await fetch(`http://127.0.0.1:${gateway.app.metricsPort}/metrics`)).text();
  const waiting = async () => Number(/^munja_queue_waiting\{model="m"\} (\d+)$/m.exec(await metrics())?.[1] ?? 0);
  const post = (key: string, content = 'Hello there', signal?: AbortSignal) => fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: chatBody({ model: 'm', messages: [{ role: 'user', content }] }),
    signal,
  });
  return { metrics, waiting, post };
}

/** Until the engine's first sample is in, it is not taken as saturated (no request would wait). */
async function sampled(metrics: () => Promise<string>): Promise<void> {
  await expect.poll(async () => /^munja_upstream_engine_stale\{[^}]*\} 0$/m.test(await metrics())).toBe(true);
}

describe('the admission queue, on its defaults', () => {
  it('holds a request while the engine is saturated and sends it once the engine has room; the wait is logged and measured', async () => {
    const log = new PassThrough();
    let lines = '';
    log.on('data', (chunk: Buffer) => { lines += chunk.toString(); });
    const vllm = await engine(SATURATED);
    const gateway = await gatewayOver(vllm, {}, { logTo: log });
    const { key } = await gateway.createKey();
    const { metrics, waiting, post } = client(gateway);
    await sampled(metrics);
    const reply = post(key);
    await expect.poll(waiting).toBe(1);
    expect(vllm.mock.totals.requests).toBe(0);
    vllm.load = IDLE;
    const response = await reply;
    expect(response.status).toBe(200);
    expect((await response.json()).object).toBe('chat.completion');
    expect(vllm.mock.totals.requests).toBe(1);
    expect(await waiting()).toBe(0);
    const text = await metrics();
    expect(text).toMatch(/^munja_queue_wait_seconds_count\{model="m",priority="normal"\} 1$/m);
    expect(text).not.toMatch(/munja_queue_wait_seconds[^\n]*key/);
    await expect.poll(() => lines.includes('"route":"/v1/chat/completions"')).toBe(true);
    const line = lines.trim().split('\n').map((each) => JSON.parse(each) as Record<string, unknown>).find((entry) => entry.route === '/v1/chat/completions')!;
    expect(line.status).toBe(200);
    expect(line.queueMs).toBeGreaterThan(0);
  });

  it('puts the wait on the trace: on the request span, and as an event of its dispatch', async () => {
    const exporter = new InMemorySpanExporter();
    const vllm = await engine(SATURATED);
    const gateway = await gatewayOver(vllm, {}, { spanProcessor: new SimpleSpanProcessor({ exporter }) });
    const { key } = await gateway.createKey();
    const { metrics, waiting, post } = client(gateway);
    await sampled(metrics);
    const reply = post(key);
    await expect.poll(waiting).toBe(1);
    vllm.load = IDLE;
    expect((await reply).status).toBe(200);
    await expect.poll(() => exporter.getFinishedSpans().some((span) => span.kind === SpanKind.SERVER)).toBe(true);
    const spans = exporter.getFinishedSpans();
    const server = spans.find((span) => span.kind === SpanKind.SERVER)!;
    expect(server.attributes['munja.queue.priority']).toBe('normal');
    expect(server.attributes['munja.queue.outcome']).toBe('admitted');
    expect(server.attributes['munja.queue.wait_ms']).toBeGreaterThan(0);
    const dispatch = spans.find((span) => span.name === 'munja.dispatch')!;
    expect(dispatch.events.map((event) => event.name)).toContain('munja.queue');
  });

  it(`refuses a request still waiting at the deadline (${DEFAULT_QUEUE.timeoutMs} ms) with 503 overloaded and Retry-After; the engine never sees it`, async () => {
    const vllm = await engine(SATURATED);
    const gateway = await gatewayOver(vllm);
    const { key } = await gateway.createKey();
    const { metrics, waiting, post } = client(gateway);
    await sampled(metrics);
    const reply = post(key);
    await expect.poll(waiting).toBe(1);
    const response = await reply;
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    const body = await response.json();
    expect(body.error.code).toBe('overloaded');
    expect(body.error.message).toContain(`${DEFAULT_QUEUE.timeoutMs} ms`);
    expect(vllm.mock.totals.requests).toBe(0);
    expect(await waiting()).toBe(0);
  }, DEFAULT_QUEUE.timeoutMs + 20_000);

  it('a client that leaves while its request waits is taken out of the queue, and the engine never sees its request', async () => {
    const vllm = await engine(SATURATED);
    const gateway = await gatewayOver(vllm);
    const { key } = await gateway.createKey();
    const { metrics, waiting, post } = client(gateway);
    await sampled(metrics);
    const leaving = new AbortController();
    const abandoned = post(key, 'never sent', leaving.signal).catch((error: unknown) => error);
    await expect.poll(waiting).toBe(1);
    leaving.abort();
    expect(await abandoned).toBeInstanceOf(Error);
    await expect.poll(waiting).toBe(0);
    vllm.load = IDLE;
    // A later request goes through (once the engine's room shows), and it is the only one the engine saw.
    await expect.poll(async () => (await post(key, 'sent')).status).toBe(200);
    const contents = vllm.mock.requests.map((seen) => (seen.body as { messages: Array<{ content: string }> }).messages[0]!.content);
    expect(contents.length).toBeGreaterThan(0);
    expect(contents.every((content) => content === 'sent')).toBe(true);
  });

  it('serves a higher band first: a high-priority key passes low-priority requests already waiting', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'munja-queue-'));
    dirs.push(dataDir);
    const vllm = await engine(SATURATED);
    // Keys are made first, so that the config can name them.
    const first = await gatewayOver(vllm, {}, { dataDir });
    const low = await first.createKey({ accountEmail: 'low@example.com' });
    const high = await first.createKey({ accountEmail: 'high@example.com' });
    await started.splice(started.indexOf(first), 1)[0]!.close();
    const gateway = await gatewayOver(vllm, { limits: { priority: { keys: { [high.id]: 'high' }, accounts: { [low.accountId]: 'low' } } } }, { dataDir });
    const { metrics, waiting, post } = client(gateway);
    await sampled(metrics);
    const replies = [post(low.key, 'low 1')];
    await expect.poll(waiting).toBe(1);
    replies.push(post(low.key, 'low 2'));
    await expect.poll(waiting).toBe(2);
    replies.push(post(high.key, 'high 1'));
    await expect.poll(waiting).toBe(3);
    // Room for one at a time: the order the engine sees is the order they left.
    vllm.load = ONE_SLOT;
    expect((await Promise.all(replies)).map((response) => response.status)).toEqual([200, 200, 200]);
    const contents = vllm.mock.requests.map((seen) => (seen.body as { messages: Array<{ content: string }> }).messages[0]!.content);
    expect(contents).toEqual(['high 1', 'low 1', 'low 2']);
    const text = await metrics();
    expect(text).toMatch(/^munja_queue_wait_seconds_count\{model="m",priority="high"\} 1$/m);
    expect(text).toMatch(/^munja_queue_wait_seconds_count\{model="m",priority="low"\} 2$/m);
  });
});

describe('the admission queue at its default bound', () => {
  // server.maxRequestsPerAddress (128) bounds one client address, limits.concurrency (64) one key:
  // the requests come from 8 loopback addresses, 2 keys each, of accounts of their own.
  const ADDRESSES = 8;
  const KEYS_PER_ADDRESS = 2;
  const PER_KEY = 63;

  it(`holds at most ${DEFAULT_QUEUE.maxWaiting} requests and refuses the rest at once with 503 overloaded`, async () => {
    const vllm = await engine(SATURATED);
    const gateway = await gatewayOver(vllm);
    const { metrics, waiting } = client(gateway);
    const agents = Array.from({ length: ADDRESSES }, (_, i) => new Agent({ localAddress: `127.0.0.${i + 2}` }));
    started.push(...agents.map((agent) => ({ close: () => agent.destroy() })));
    const keys = [];
    for (let i = 0; i < ADDRESSES * KEYS_PER_ADDRESS; i++) keys.push((await gateway.createKey({ accountEmail: `tenant-${i}@example.com` })).key);
    await sampled(metrics);
    const leaving = new AbortController();
    const statuses: Array<Promise<number>> = [];
    keys.forEach((key, i) => {
      for (let n = 0; n < PER_KEY; n++) {
        statuses.push(fetchFrom(`${gateway.baseURL}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: chatBody({ model: 'm' }),
          dispatcher: agents[i % ADDRESSES],
          signal: leaving.signal,
        }).then((response) => response.status, () => 0));
      }
    });
    const total = statuses.length;
    expect(total).toBeGreaterThan(DEFAULT_QUEUE.maxWaiting);
    // Filled within the deadline (the first to wait would leave at it).
    await expect.poll(waiting).toBe(DEFAULT_QUEUE.maxWaiting);
    // The rest were refused while the others waited (0: a request cut short by the abort below); the engine saw none.
    leaving.abort();
    const answered = await Promise.all(statuses);
    expect(answered.filter((status) => status === 503)).toHaveLength(total - DEFAULT_QUEUE.maxWaiting);
    expect(answered.filter((status) => status === 0)).toHaveLength(DEFAULT_QUEUE.maxWaiting);
    await expect.poll(waiting).toBe(0);
    expect(vllm.mock.totals.requests).toBe(0);
  }, 60_000);
});

describe('a llama.cpp server read from its slots', () => {
  it('holds a request while every slot is busy, and sends it once one is idle', async () => {
    let busy = true;
    const mock = await startMockUpstream({ metrics: () => 404, slots: () => JSON.stringify([{ id: 0, is_processing: busy }]) });
    started.push(mock);
    const gateway = await startGateway({ engine: { threads: 1 }, models: { m: { upstreams: [{ baseUrl: mock.baseUrl, model: 'mock-model', engine: 'llamacpp' }] } } }, { env: { MUNJA_METRICS_PORT: '0' } });
    started.push(gateway);
    const { key } = await gateway.createKey();
    const { metrics, waiting, post } = client(gateway);
    await sampled(metrics);
    const reply = post(key);
    await expect.poll(waiting).toBe(1);
    expect(mock.totals.requests).toBe(0);
    busy = false;
    expect((await reply).status).toBe(200);
    expect(mock.totals.requests).toBe(1);
  });
});

describe('an upstream with maxConcurrent and no engine', () => {
  it('holds a request while the upstream has maxConcurrent in flight, and sends it when one ends', async () => {
    const mock = await startMockUpstream({ defaultBehavior: { kind: 'hang' } });
    started.push(mock);
    const gateway = await startGateway({ engine: { threads: 1 }, models: { m: { upstreams: [{ baseUrl: mock.baseUrl, model: 'mock-model', maxConcurrent: 1 }] } } }, { env: { MUNJA_METRICS_PORT: '0' } });
    started.push(gateway);
    const { key } = await gateway.createKey();
    const { waiting, post } = client(gateway);
    const leaving = new AbortController();
    const first = post(key, 'first', leaving.signal).catch((error: unknown) => error);
    await mock.waitForRequests(1);
    mock.setBehavior({ kind: 'json' });
    const second = post(key, 'second');
    await expect.poll(waiting).toBe(1);
    expect(mock.totals.requests).toBe(1);
    // The first one's client leaves: its attempt ends, and the upstream has room for the second.
    leaving.abort();
    expect(await first).toBeInstanceOf(Error);
    expect((await second).status).toBe(200);
    expect(mock.requests.map((seen) => (seen.body as { messages: Array<{ content: string }> }).messages[0]!.content)).toEqual(['first', 'second']);
  });
});

describe('the admission queue with a smaller bound', () => {
  it('refuses a request at once with 503 overloaded when the queue is full; those waiting are served later', async () => {
    const vllm = await engine(SATURATED);
    const gateway = await gatewayOver(vllm, { limits: { queue: { maxWaiting: 2 } } });
    const { key } = await gateway.createKey();
    const { metrics, waiting, post } = client(gateway);
    await sampled(metrics);
    const replies = [post(key, 'one'), post(key, 'two')];
    await expect.poll(waiting).toBe(2);
    const refused = await post(key, 'three');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await refused.json()).error.code).toBe('overloaded');
    vllm.load = IDLE;
    expect((await Promise.all(replies)).map((response) => response.status)).toEqual([200, 200]);
    expect(vllm.mock.totals.requests).toBe(2);
  });
});
