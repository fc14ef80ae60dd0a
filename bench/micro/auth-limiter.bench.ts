// Micro-benchmarks of the per-request calls that touch state: authenticating a key that is in the
// cache (the common case), and one limiter decision plus its settlement, in memory and against a
// private redis-server (over loopback, alone and 50 at once: the 50 share their calls; skipped
// when redis-server is missing).
// Run: node bench/micro/auth-limiter.bench.ts   (about 15 s; prints a markdown table)
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Authenticator } from '../../src/auth/authenticator.ts';
import { createApiKey } from '../../src/auth/create-key.ts';
import { DEFAULT_LIMITS, DEFAULT_REDIS } from '../../src/config/default-config.ts';
import type { LimitsConfig } from '../../src/config/config-types.ts';
import type { Limiter } from '../../src/ratelimit/limiter.ts';
import { MemoryLimiter } from '../../src/ratelimit/memory-limiter.ts';
import { RedisLimiter } from '../../src/ratelimit/redis-limiter.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { stopAll } from '../processes.ts';
import { startRedis } from '../redis.ts';
import { type Timing, timeAsync, timingTable } from './timing.ts';

const SETTINGS: LimitsConfig = { ...DEFAULT_LIMITS, rpm: 100_000_000, tpm: 2_000_000_000, concurrency: 0, account: null };
const IN_FLIGHT = 10_000;
const CONCURRENT = 50;
const SUBJECT = { keyId: 'key_bench', accountId: 'acct_bench', limits: { rpm: 100_000_000, tpm: 2_000_000_000 } };

function acquireAndSettle(limiter: Limiter): () => Promise<unknown> {
  return async () => {
    const decision = await limiter.acquire(SUBJECT, 600);
    if (decision.lease !== null) await limiter.settle(decision.lease, 150);
    return decision;
  };
}

/** This process's CPU time (user + system) per decision over 2 s of `together` batches. */
async function cpuPerDecision(together: () => Promise<unknown>): Promise<string> {
  let batches = 0;
  const cpuBefore = process.cpuUsage();
  const began = performance.now();
  while (performance.now() - began < 2_000) {
    await together();
    batches += 1;
  }
  const cpu = process.cpuUsage(cpuBefore);
  const decisions = batches * CONCURRENT;
  const cpuUs = (cpu.user + cpu.system) / decisions;
  const wallUs = ((performance.now() - began) * 1000) / decisions;
  return `RedisLimiter, ${CONCURRENT} at once: ${cpuUs.toFixed(1)} µs of this process's CPU and ${wallUs.toFixed(1)} µs of wall time per decision (acquire + settle), over ${decisions.toLocaleString('en-US')} decisions.`;
}

const timings: Timing[] = [];
const notes: string[] = [];
const dir = mkdtempSync(join(tmpdir(), 'munja-micro-'));
try {
  const store = SqliteStore.open(dir);
  const { key } = await createApiKey(store, { accountEmail: 'bench@example.com', createAccount: true });
  const authenticator = new Authenticator({ store, secret: await store.keySecret(), defaultLimits: SETTINGS, cacheTtlMs: 10_000 });
  const header = `Bearer ${key}`;
  await authenticator.authenticate(header); // fills the cache
  timings.push(await timeAsync('Authenticator.authenticate, key in the cache (awaited)', () => authenticator.authenticate(header)));
  await store.close();

  const memory = new MemoryLimiter(SETTINGS);
  timings.push(await timeAsync('MemoryLimiter acquire + settle (awaited)', acquireAndSettle(memory)));
  await memory.close();

  // With the concurrency cap on, a decision counts the key's requests in flight: it must not cost
  // more when many are (a gateway holding thousands of streams for one key).
  const capped = new MemoryLimiter({ ...SETTINGS, concurrency: 1_000_000 });
  for (let held = 0; held < IN_FLIGHT; held++) await capped.acquire(SUBJECT, 600);
  timings.push(await timeAsync(`MemoryLimiter acquire + settle, concurrency cap on, ${IN_FLIGHT.toLocaleString('en-US')} of the key's requests in flight`, acquireAndSettle(capped)));
  await capped.close();

  const redis = await startRedis(undefined);
  if (typeof redis === 'string') notes.push(`RedisLimiter: skipped, ${redis}`);
  else {
    const limiter = await RedisLimiter.open({ url: redis.url, commandTimeoutMs: 1_000, connectTimeoutMs: DEFAULT_REDIS.connectTimeoutMs }, { settings: SETTINGS });
    // One at a time: the latency of a decision, two loopback round trips to redis-server.
    timings.push(await timeAsync(`RedisLimiter acquire + settle, one at a time (redis-server ${redis.version}, loopback)`, acquireAndSettle(limiter), { roundMs: 200 }));
    // As under load: many requests decide at once, and their calls share writes (auto-pipelining).
    // What that saves is the gateway's CPU (fewer socket writes), which wall time does not show
    // while redis-server shares the machine: both are reported.
    const one = acquireAndSettle(limiter);
    const together = () => Promise.all(Array.from({ length: CONCURRENT }, one));
    timings.push(await timeAsync(`RedisLimiter acquire + settle, ${CONCURRENT} at once (time for all ${CONCURRENT})`, together, { roundMs: 200 }));
    notes.push(await cpuPerDecision(together));
    await limiter.close();
  }
} finally {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
}

process.stdout.write(`# Munja auth and limiter calls (${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'})\n\n${timingTable(timings)}\n${notes.map((note) => `\n${note}\n`).join('')}`);
