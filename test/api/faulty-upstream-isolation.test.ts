// One upstream that floods its stream without ever ending an event must not stall the process:
// /health and other clients' streams keep their latency (compared, as a ratio, with a run without
// the flood in the same test) and memory stays bounded. Before, the splitter joined and decoded
// its whole pending tail on every read: /health took seconds and RSS grew by hundreds of MiB.
// On the defaults the circuit breaker ejects the flooding upstream after five broken streams; the
// same test with the breaker held open shows the process itself copes with a flood that goes on.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';

const CALM_FLOOR_MS = 10;

let upstream: ChildProcess;
let baseUrl: string;
let gateway: TestGateway | undefined;
let key: string;

beforeAll(async () => {
  upstream = spawn(process.execPath, [fileURLToPath(new URL('../helpers/flooding-upstream.ts', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(upstream.stdout!, 'data')) as [Buffer];
  baseUrl = `http://127.0.0.1:${(JSON.parse(line.toString()) as { port: number }).port}/v1`;
});
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});
afterAll(() => {
  upstream?.kill();
});

async function startWith(upstreamSettings: Record<string, unknown> | undefined): Promise<void> {
  gateway = await startGateway({
    engine: { threads: 1 },
    ...(upstreamSettings === undefined ? {} : { upstream: upstreamSettings }),
    models: { flood: { upstreams: [{ baseUrl, model: 'flood' }] }, good: { upstreams: [{ baseUrl, model: 'good' }] } },
  });
  ({ key } = await gateway.createKey());
}

const post = (model: string) => fetch(`${gateway!.baseURL}/chat/completions`, {
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
      for (let index = 0; index < count && performance.now() < until; index++) health.push(await timed(async () => void (await (await fetch(`${gateway!.origin}/health`)).text())));
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

it.each([
  // Each flooded stream is a failure of its upstream: held open, the breaker lets the flood go on.
  { settings: 'with the breaker held open', upstreamSettings: { breaker: { consecutiveFailures: 1_000_000 } } },
  { settings: 'on the defaults', upstreamSettings: undefined },
])('keeps /health and other streams at their latency, and memory bounded, while an upstream floods ($settings)', { timeout: 60_000 }, async ({ upstreamSettings }) => {
  await startWith(upstreamSettings);
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
    const figures = JSON.stringify({ calm, flooded, floods, refused, rssGrowthMiB: Math.round((rssMax - rssBefore) / 2 ** 20) });
    // A calm p99 of a few ms is one scheduling hiccup away from doubling while other test files
    // share the cores, so the ratio is taken over at least 10 ms: a stall (the old splitter held
    // /health for 1.6 s against a calm 9.7 ms) is still a ratio of well over a hundred.
    expect(flooded.health / Math.max(calm.health, CALM_FLOOR_MS), figures).toBeLessThan(10);
    expect(flooded.stream / Math.max(calm.stream, CALM_FLOOR_MS), figures).toBeLessThan(10);
    expect(rssMax - rssBefore, figures).toBeLessThan(64 * 2 ** 20);
    // Each flood that reached the upstream ended in an error event (the event outgrew the cap); on
    // the defaults the breaker refuses the rest at once.
    expect(refused, figures).toBeGreaterThan(0);
    if (upstreamSettings !== undefined) expect(refused, figures).toBe(floods);
  } finally {
    flooding = false;
    clearInterval(sampler);
    await flood.catch(() => {});
  }
});
