// A rolling restart under load loses nothing: two `munja serve` instances on one Redis behind a
// small load balancer that routes only to instances whose /readyz answered 200 on its last probe
// (every 100 ms), the way a real one does. While clients keep sending JSON and streaming requests,
// instance A gets SIGTERM, exits 0 and starts again on its port, then B does the same. Every
// request must succeed in full, and each restart must happen with requests in flight.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody } from '../helpers/http.ts';
import { type Backend, ReadinessBalancer, freePort } from '../helpers/readiness-balancer.ts';
import { startRedis, type TestRedis } from '../helpers/redis-server.ts';
import { killServeProcesses, type ServeProcess, startServeProcess } from '../helpers/serve-process.ts';
import { chunksOf } from '../helpers/sse.ts';

const CLIENTS = 10;
const MAX_REQUESTS = 20_000; // a bound on the load whatever happens
const PROBE_EVERY_MS = 100;
// Each step waits for a condition; under this load one can take many seconds to hold.
const UNDER_LOAD = { timeout: 30_000 };

let redis: TestRedis;
const dir = mkdtempSync(join(tmpdir(), 'munja-rolling-'));
const configFile = join(dir, 'munja.json');

beforeAll(async () => {
  redis = await startRedis();
  writeFileSync(configFile, JSON.stringify({
    // The window is 15 probe intervals: ample for the balancer to notice on a busy machine.
    server: { drainDelayMs: 1_500, shutdownGraceMs: 10_000 },
    limits: { rpm: 1_000_000, tpm: 100_000_000, expectedInstances: 2 },
    // The default 50 ms command deadline can fail a start on a busy test machine.
    redis: { commandTimeoutMs: 1_000 },
    models: { fast: { local: { timeToFirstTokenMs: 10, tokensPerSecond: 200 } } },
  }));
});
afterAll(async () => {
  killServeProcesses();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Instance extends Backend {
  process: ServeProcess | null;
}

interface Outcome {
  readonly ok: boolean;
  readonly backend: string;
  readonly detail: string;
  /** Index in the event log when the request was sent and when it finished. */
  readonly sentAt: number;
  readonly doneAt: number;
}

describe('rolling restart', () => {
  it('of two instances under load fails no request', async () => {
    const env = (backend: Instance) => ({ REDIS_URL: redis.url, MUNJA_WORKERS: '1', MUNJA_DATA: dir, MUNJA_CONFIG: configFile, PORT: String(backend.port) });
    const a: Instance = { name: 'A', port: await freePort(), generation: 1, ready: false, inFlight: 0, process: null };
    const b: Instance = { name: 'B', port: await freePort(), generation: 1, ready: false, inFlight: 0, process: null };
    a.process = await startServeProcess(env(a));
    const key = a.process.firstKey();
    expect(key).toMatch(/^sk_munja_/);
    b.process = await startServeProcess(env(b));
    const balancer = new ReadinessBalancer([a, b], PROBE_EVERY_MS);
    const url = `http://127.0.0.1:${await balancer.listen()}/v1/chat/completions`;

    const events: string[] = [];
    const stopped: ServeProcess[] = [];
    const outcomes: Outcome[] = [];
    let stop = false;
    const send = async (stream: boolean): Promise<void> => {
      const sentAt = events.length;
      let ok = false;
      let backend = '';
      let detail = '';
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: chatBody({ stream, max_tokens: 16 }),
        });
        backend = response.headers.get('x-backend') ?? '';
        const text = await response.text();
        detail = `${response.status} ${text.slice(0, 200)}`;
        if (response.status === 200) {
          const content = stream
            ? chunksOf(text).map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')
            : JSON.parse(text).choices[0].message.content;
          ok = typeof content === 'string' && content.length > 0;
        }
      } catch (error) {
        detail = String(error);
      }
      outcomes.push({ ok, backend, detail, sentAt, doneAt: events.length });
    };
    const client = async (index: number): Promise<void> => {
      for (let n = index; !stop && outcomes.length < MAX_REQUESTS; n++) await send(n % 2 === 0);
    };
    const restart = async (backend: Instance): Promise<void> => {
      await expect.poll(() => backend.inFlight, UNDER_LOAD).toBeGreaterThan(0);
      events.push(`${backend.name} SIGTERM`);
      backend.process!.child.kill('SIGTERM');
      expect(await backend.process!.exited).toBe(0);
      stopped.push(backend.process!);
      events.push(`${backend.name} exited`);
      backend.generation++;
      backend.process = await startServeProcess(env(backend));
      await expect.poll(() => backend.ready, UNDER_LOAD).toBe(true);
      events.push(`${backend.name} ready`);
    };

    try {
      await expect.poll(() => a.ready && b.ready, UNDER_LOAD).toBe(true);
      const load = Promise.all(Array.from({ length: CLIENTS }, (_, index) => client(index)));
      await expect.poll(() => outcomes.length, UNDER_LOAD).toBeGreaterThanOrEqual(20); // load before the restarts
      await restart(a);
      await expect.poll(() => outcomes.some((outcome) => outcome.backend === 'A2'), UNDER_LOAD).toBe(true);
      await restart(b);
      await expect.poll(() => outcomes.some((outcome) => outcome.backend === 'B2'), UNDER_LOAD).toBe(true);
      const sent = outcomes.length;
      await expect.poll(() => outcomes.length, UNDER_LOAD).toBeGreaterThanOrEqual(sent + 20); // load after the restarts
      stop = true;
      await load;
    } finally {
      stop = true;
      await balancer.close();
    }

    const failures = outcomes.filter((outcome) => !outcome.ok);
    expect(failures.map((outcome) => `${outcome.backend}: ${outcome.detail}`)).toEqual([]);
    expect(outcomes.length).toBeLessThan(MAX_REQUESTS);
    // By order: requests sent to each old instance before its SIGTERM finished after it; the other
    // instance carried the load while one was away; both new instances served.
    expect(events).toEqual(['A SIGTERM', 'A exited', 'A ready', 'B SIGTERM', 'B exited', 'B ready']);
    const served = (backend: string, sent: (at: number) => boolean, done: (at: number) => boolean) =>
      outcomes.filter((outcome) => outcome.backend === backend && sent(outcome.sentAt) && done(outcome.doneAt)).length;
    expect(served('A1', (at) => at === 0, (at) => at >= 1)).toBeGreaterThan(0);
    expect(served('B1', (at) => at >= 1, (at) => at <= 2)).toBeGreaterThan(0);
    expect(served('B1', (at) => at <= 3, (at) => at >= 4)).toBeGreaterThan(0);
    expect(served('A2', (at) => at >= 4, (at) => at <= 5)).toBeGreaterThan(0);
    expect(served('B2', () => true, () => true)).toBeGreaterThan(0);
    // Each old instance finished everything it had (none was cut off at the deadline).
    for (const old of stopped) expect(old.stdout()).toMatch(/"drained":true[^\n]*"msg":"stopped"/);
    a.process!.child.kill('SIGTERM');
    b.process!.child.kill('SIGTERM');
    expect(await Promise.all([a.process!.exited, b.process!.exited])).toEqual([0, 0]);
  }, 120_000);
});
