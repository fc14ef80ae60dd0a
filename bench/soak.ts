// The soak: connect / stream / abort cycles for a bounded time, with Munja's memory, descriptors
// and V8 heap sampled every second. Each cycle opens a fresh connection, asks for a ~0.2 s stream
// and, by a seeded draw, cuts it before the response, part way through, or reads it to the end.
// Memory is compared at rest before and after (a warm-up first, so that what a first run
// allocates once does not count as growth) against a budget: +10 % + 20 MiB. "At rest" is
// AT_REST_SECONDS after the load: when traffic falls quiet, Munja collects (src/lifecycle/
// surge-collection.ts) within about two seconds, and V8 returns the freed pages about eight
// seconds after that collection.
import { readFileSync } from 'node:fs';
import { createRandom } from '../src/engine/prng.ts';
import { HttpConnection, requestBytes } from './http-connection.ts';
import { nowMs } from './paced-load.ts';
import { connectionsTo, fdCount } from './proc-stats.ts';
import { treeRssBytes } from './resource-watch.ts';
import { chatRequest, type Target } from './scenarios/index.ts';

/** When the readings at rest are taken, after the warm-up and after the soak. */
export const AT_REST_SECONDS = 15;

export interface SoakPoint {
  readonly seconds: number;
  readonly rssBytes: number;
  readonly fds: number;
  /** Of those, connections to the upstream kept alive in Munja's pool (not a leak). */
  readonly upstreamConnections: number;
  readonly heapUsedBytes: number;
  readonly heapTotalBytes: number;
  /** Buffers and other memory V8 tracks outside its heap. */
  readonly externalBytes: number;
}

export interface SoakResult {
  readonly seconds: number;
  readonly concurrency: number;
  readonly cycles: number;
  readonly completed: number;
  readonly aborted: number;
  readonly errors: number;
  readonly start: SoakPoint;
  readonly end: SoakPoint;
  readonly points: readonly SoakPoint[];
  readonly budgetBytes: number;
  readonly withinBudget: boolean;
  /** RSS growth over the second half of the soak: a leak keeps growing, a plateau does not. */
  readonly secondHalfGrowthBytes: number;
}

const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));


function heap(heapFile: string): { heapUsed: number; heapTotal: number; external: number } {
  try {
    return JSON.parse(readFileSync(heapFile, 'utf8')) as { heapUsed: number; heapTotal: number; external: number };
  } catch {
    return { heapUsed: Number.NaN, heapTotal: Number.NaN, external: Number.NaN };
  }
}

export async function runSoak(target: Target, options: { seconds: number; warmupSeconds: number; concurrency: number; heapFile: string; upstreamPort: number }): Promise<SoakResult> {
  const pid = target.pids[0]!;
  const request = chatRequest(target, 'soak', true);
  const url = new URL(request.url);
  const bytes = requestBytes(request);
  const random = createRandom(7);
  const counts = { cycles: 0, completed: 0, aborted: 0, errors: 0 };

  // One cycle; resolves when it is over however it ended.
  const cycle = async () => {
    // 0: cut right after sending; 1–104: after that many events; above: read to the end (~1 in 5).
    const cutAfter = Math.floor(random() * 131);
    let connection: HttpConnection;
    try {
      connection = await HttpConnection.open(Number(url.port), url.hostname);
    } catch {
      counts.errors++;
      await sleep(100);
      return;
    }
    counts.cycles++;
    await new Promise<void>((resolve) => {
      const guard = setTimeout(() => { counts.errors++; connection.destroy(); resolve(); }, 15_000);
      const done = (kind: 'completed' | 'aborted' | 'errors') => {
        clearTimeout(guard);
        counts[kind]++;
        connection.destroy();
        resolve();
      };
      let events = 0;
      connection.send(bytes, {
        onBody: (piece) => {
          for (let at = piece.indexOf('\n\n'); at !== -1; at = piece.indexOf('\n\n', at + 2)) events++;
          if (cutAfter > 0 && events >= cutAfter) done('aborted');
        },
        onEnd: (status) => done(status === 200 ? 'completed' : 'errors'),
        onError: () => done('errors'),
      });
      if (cutAfter === 0) setImmediate(() => done('aborted'));
    });
  };
  const runFor = async (seconds: number) => {
    const deadline = nowMs() + seconds * 1000;
    await Promise.all(Array.from({ length: options.concurrency }, async () => {
      while (nowMs() < deadline) await cycle();
    }));
  };
  const point = (began: number): SoakPoint => {
    const { heapUsed, heapTotal, external } = heap(options.heapFile);
    return { seconds: (nowMs() - began) / 1000, rssBytes: treeRssBytes(pid), fds: fdCount(pid), upstreamConnections: connectionsTo(pid, options.upstreamPort), heapUsedBytes: heapUsed, heapTotalBytes: heapTotal, externalBytes: external };
  };

  await runFor(options.warmupSeconds);
  await sleep(AT_REST_SECONDS * 1000);
  const began = nowMs();
  const start = point(began);
  Object.assign(counts, { cycles: 0, completed: 0, aborted: 0, errors: 0 });
  const points: SoakPoint[] = [start];
  const sampler = setInterval(() => points.push(point(began)), 1_000);
  await runFor(options.seconds);
  clearInterval(sampler);
  await sleep(AT_REST_SECONDS * 1000);
  const end = point(began);
  points.push(end);
  const budgetBytes = start.rssBytes * 0.1 + 20 * MiB;
  return {
    seconds: options.seconds,
    concurrency: options.concurrency,
    ...counts,
    start,
    end,
    points,
    budgetBytes,
    withinBudget: end.rssBytes - start.rssBytes <= budgetBytes,
    secondHalfGrowthBytes: end.rssBytes - (points.find((sample) => sample.seconds >= options.seconds / 2)?.rssBytes ?? start.rssBytes),
  };
}
