// One upstream that floods its stream without ever ending an event must not stall the process:
// /health and other clients' streams keep their latency (compared, as a ratio, with a run without
// the flood in the same test) and memory stays bounded. Before, the splitter joined and decoded
// its whole pending tail on every read: /health took seconds and RSS grew by hundreds of MiB.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';

let upstream: ChildProcess;
let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  upstream = spawn(process.execPath, [fileURLToPath(new URL('../helpers/flooding-upstream.ts', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(upstream.stdout!, 'data')) as [Buffer];
  const baseUrl = `http://127.0.0.1:${(JSON.parse(line.toString()) as { port: number }).port}/v1`;
  gateway = await startGateway({
    engine: { threads: 1 },
    // Each flooded stream is a failure of its upstream: the breaker would eject it after five and
    // so end the flood that this test is about.
    upstream: { breaker: { consecutiveFailures: 1_000_000 } },
    models: { flood: { upstreams: [{ baseUrl, model: 'flood' }] }, good: { upstreams: [{ baseUrl, model: 'good' }] } },
  });
  ({ key } = await gateway.createKey());
});
afterAll(async () => {
  await gateway?.close();
  upstream?.kill();
});

const post = (model: string) => fetch(`${gateway.baseURL}/chat/completions`, {
  method: 'POST',
  headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  body: chatBody({ model, stream: true }),
});

async function timed(task: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await task();
  return performance.now() - start;
}

/**
 * p99 of /health (asked `count` times, one after another) and of a good stream (a quarter as
 * often, alongside). No new request is started after 10 s, so that a stalled process still ends
 * the test with figures rather than a timeout.
 */
async function latencies(count: number): Promise<{ health: number; stream: number }> {
  const health: number[] = [];
  const streams: number[] = [];
  const until = performance.now() + 10_000;
  await Promise.all([
    (async () => {
      for (let index = 0; index < count && performance.now() < until; index++) health.push(await timed(async () => void (await (await fetch(`${gateway.origin}/health`)).text())));
    })(),
    (async () => {
      for (let index = 0; index < count / 4 && performance.now() < until; index++) {
        streams.push(await timed(async () => expect(await (await post('good')).text()).toContain('"finish_reason":"stop"')));
      }
    })(),
  ]);
  return { health: p99(health), stream: p99(streams) };
}

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
}

it('keeps /health and other streams at their latency, and memory bounded, while an upstream floods', { timeout: 60_000 }, async () => {
  await latencies(20); // warm-up
  const calm = await latencies(100);
  let flooding = true;
  let floods = 0;
  let refused = 0;
  const rssBefore = process.memoryUsage().rss;
  let rssMax = rssBefore;
  const sampler = setInterval(() => (rssMax = Math.max(rssMax, process.memoryUsage().rss)), 20);
  const flood = Promise.all(Array.from({ length: 1 }, async () => {
    while (flooding) {
      if ((await (await post('flood')).text()).includes('"code":"upstream_error"')) refused++;
      floods++;
    }
  }));
  try {
    const flooded = await latencies(100);
    flooding = false;
    await flood;
    clearInterval(sampler);
    console.log({ calm, flooded, floods, rssGrowthMiB: Math.round((rssMax - rssBefore) / 2 ** 20) });
    expect(flooded.health / calm.health).toBeLessThan(10);
    expect(flooded.stream / calm.stream).toBeLessThan(10);
    expect(rssMax - rssBefore).toBeLessThan(64 * 2 ** 20);
    // Each flood ended in an error event (the event outgrew the cap).
    expect(floods).toBeGreaterThan(0);
    expect(refused).toBe(floods);
  } finally {
    flooding = false;
    clearInterval(sampler);
    await flood.catch(() => {});
  }
});
