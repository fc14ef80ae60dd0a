// A crashed worker loses only its own requests (MUNJA_WORKERS=2 on one Redis): with streams in
// flight on both workers, one is killed with SIGKILL; the streams it served break, every stream
// on the other worker runs to [DONE], the primary starts a replacement, and service goes on.
// Which worker served a request shows in its x-request-id: each process has its own id prefix.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody } from '../helpers/http.ts';
import { startRedis, type TestRedis } from '../helpers/redis-server.ts';
import { killServeProcesses, startServeProcess } from '../helpers/serve-process.ts';

let redis: TestRedis;
const dir = mkdtempSync(join(tmpdir(), 'munja-crash-'));
const configFile = join(dir, 'munja.json');

beforeAll(async () => {
  redis = await startRedis();
  writeFileSync(configFile, JSON.stringify({
    limits: { rpm: 1_000_000, tpm: 100_000_000 },
    redis: { commandTimeoutMs: 1_000 },
    models: { slow: { local: { timeToFirstTokenMs: 0, tokensPerSecond: 20 } }, fast: { local: {} } },
  }));
});
afterAll(async () => {
  killServeProcesses();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Call {
  /** x-request-id; set when the headers arrive. */
  id: string;
  /** The process prefix of x-request-id (`req_` + 12 hex digits). */
  prefix: string;
  status: number;
  text: string;
  /** The response arrived in full (the connection did not break mid-body). */
  complete: boolean;
  /** Resolves when the response has ended or broken off. */
  readonly settled: Promise<void>;
}

/** A request on a connection of its own, so that the kernel may hand it to either worker. */
function call(port: number, key: string, body: string): Call {
  const result = { id: '', prefix: '', status: 0, text: '', complete: false } as Call;
  (result as { settled: Promise<void> }).settled = new Promise<void>((resolve) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/chat/completions', agent: false, headers: {
      authorization: `Bearer ${key}`, 'content-type': 'application/json',
    } }, (res) => {
      result.status = res.statusCode ?? 0;
      result.id = String(res.headers['x-request-id'] ?? '');
      result.prefix = result.id.slice(0, 16);
      res.on('data', (chunk: Buffer) => { result.text += chunk.toString(); });
      res.on('error', () => {});
      res.on('close', () => { result.complete = res.complete; resolve(); });
    });
    req.on('error', () => resolve());
    req.end(body);
  });
  return result;
}

describe('worker crash', () => {
  it('loses only the killed worker’s streams; the other worker’s finish and a replacement serves', async () => {
    const server = await startServeProcess({ REDIS_URL: redis.url, MUNJA_WORKERS: '2', MUNJA_DATA: dir, MUNJA_CONFIG: configFile });
    const key = server.firstKey()!;
    const readyPids = () => [...server.stdout().matchAll(/"workerPid":(\d+),[^\n]*"msg":"worker ready"/g)].map((match) => Number(match[1]));
    expect(readyPids()).toHaveLength(2);

    // Each worker's id prefix and pid, from the request log lines of short requests.
    const pidOf = new Map<string, number>();
    for (let tries = 0; pidOf.size < 2 && tries < 100; tries++) {
      const answer = call(server.port, key, chatBody({ max_tokens: 2 }));
      await answer.settled;
      const line = new RegExp(`"pid":(\\d+),"reqId":"${answer.id}"`);
      await expect.poll(server.stdout).toMatch(line); // log lines are written in batches
      pidOf.set(answer.prefix, Number(line.exec(server.stdout())![1]));
    }
    expect([...pidOf.values()].sort()).toEqual(readyPids().sort());

    // Streams until both workers hold some (a bounded number of tries).
    const streams: Call[] = [];
    const prefixes = () => new Set(streams.map((stream) => stream.prefix).filter(Boolean));
    while (prefixes().size < 2 && streams.length < 40) {
      const batch = Array.from({ length: 4 }, () => call(server.port, key, chatBody({ model: 'slow', stream: true, max_tokens: 100 })));
      streams.push(...batch);
      await expect.poll(() => batch.every((stream) => stream.text.includes('data: '))).toBe(true);
    }
    expect(prefixes().size).toBe(2);
    const [victimPrefix, survivorPrefix] = [...prefixes()] as [string, string];
    const victim = pidOf.get(victimPrefix)!;
    expect(streams.every((stream) => !stream.complete)).toBe(true); // all still in flight

    process.kill(victim!, 'SIGKILL');
    await Promise.all(streams.map((stream) => stream.settled));
    const cut = streams.filter((stream) => stream.prefix === victimPrefix);
    const kept = streams.filter((stream) => stream.prefix === survivorPrefix);
    expect(cut.length).toBeGreaterThan(0);
    expect(kept.length).toBeGreaterThan(0);
    for (const stream of kept) {
      expect(stream.complete).toBe(true);
      expect(stream.text.endsWith('data: [DONE]\n\n')).toBe(true);
    }
    for (const stream of cut) expect(stream.complete && stream.text.endsWith('data: [DONE]\n\n')).toBe(false);

    await expect.poll(server.stdout).toMatch(new RegExp(`"workerPid":${victim},[^\\n]*"msg":"worker died; restarting it"`));
    await expect.poll(readyPids, { timeout: 20_000 }).toHaveLength(3); // a replacement worker
    const served = new Set<string>();
    for (let tries = 0; tries < 60 && ![...served].some((prefix) => prefix !== survivorPrefix); tries++) {
      const answer = call(server.port, key, chatBody({ max_tokens: 2 }));
      await answer.settled;
      expect(answer.status).toBe(200);
      served.add(answer.prefix);
    }
    // The replacement (a prefix never seen before) served.
    expect([...served].filter((prefix) => prefix !== survivorPrefix && prefix !== victimPrefix)).toHaveLength(1);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 90_000);
});
