// Redis trouble never hangs a request: killed, paused (black-holed) or its script cache flushed, the
// limiter answers within its ceiling — from the local share, or 503 for subjects that fail closed —
// and shared limiting resumes by itself. The gateway's own event-loop lag is not an outage. Slots
// of a holder that is gone come back. All on the default settings.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LimitsConfig } from '../../../src/config/config-types.ts';
import { DEFAULT_LIMITS, DEFAULT_REDIS } from '../../../src/config/default-config.ts';
import { ApiError } from '../../../src/errors/api-error.ts';
import { RedisLimiter } from '../../../src/ratelimit/redis-limiter.ts';
import { subject } from '../../contract/limiter-contract.ts';
import { startRedis, type TestRedis } from '../../helpers/redis-server.ts';

// "At once" means before the ceiling: an answer that waited for Redis takes the ceiling at least.
// These bound hanging, not speed.
const CEILING_MS = DEFAULT_REDIS.commandTimeoutMs;
// Leases short enough for a test, long enough that a loaded machine's late timers still renew the
// living holder in time.
const LEASE_MS = 1_500;

let redis: TestRedis;
let admin: Redis;
const opened: RedisLimiter[] = [];

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url, { lazyConnect: true });
  admin.on('error', () => {}); // it reconnects by itself across the kills below
  await admin.connect();
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((limiter) => limiter.close()));
});

afterAll(async () => {
  admin.disconnect();
  await redis.stop();
});

async function open(settings: Partial<LimitsConfig> = {}, leaseMs?: number): Promise<RedisLimiter> {
  const limiter = await RedisLimiter.open(
    { url: redis.url, ...DEFAULT_REDIS },
    { settings: { ...DEFAULT_LIMITS, ...settings }, leaseMs },
  );
  opened.push(limiter);
  return limiter;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await work();
  return { value, ms: performance.now() - start };
}

describe('RedisLimiter under Redis faults', () => {
  it('recovers from SCRIPT FLUSH (NOSCRIPT) and goes back to EVALSHA', async () => {
    const limiter = await open();
    const who = subject({ rpm: 1000, tpm: 1_000_000 });
    expect((await limiter.acquire(who, 1)).degraded).toBe(false);
    await admin.script('FLUSH');
    expect(await limiter.acquire(who, 1)).toMatchObject({ allowed: true, degraded: false });
    const calls = async () => {
      const stats = await admin.info('commandstats');
      const count = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
      return { eval: count('eval'), evalsha: count('evalsha') };
    };
    const before = await calls();
    for (let i = 0; i < 20; i += 1) await limiter.acquire(who, 1);
    const after = await calls();
    expect(after.eval - before.eval).toBe(0);
    expect(after.evalsha - before.evalsha).toBeGreaterThan(0);
    expect(after.evalsha - before.evalsha).toBeLessThanOrEqual(20);
    expect(limiter.metrics.backendErrors).toBe(0);
  });

  it('killed: answers at once from the local share (or 503 where it fails closed); restarted: shared again', async () => {
    const limiter = await open({ expectedInstances: 3, failClosed: ['acct_strict'] });
    const before = await limiter.acquire(subject({ rpm: 30, tpm: 1_000_000 }), 10);
    await redis.kill();
    try {
      const who = subject({ rpm: 30, tpm: 1_000_000 });
      const answers = [];
      for (let i = 0; i < 12; i += 1) answers.push(await timed(() => limiter.acquire(who, 10)));
      expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(CEILING_MS);
      expect(answers.every((answer) => answer.value.degraded)).toBe(true);
      expect(answers.filter((answer) => answer.value.allowed)).toHaveLength(10); // 30 / 3 instances
      const strict = await timed(() => limiter.acquire(subject({ rpm: 30, tpm: 1_000 }, 'acct_strict'), 1).catch((error: unknown) => error));
      expect(strict.value).toBeInstanceOf(ApiError);
      expect(strict.value).toMatchObject({ code: 'limiter_unavailable', status: 503 });
      expect(strict.ms).toBeLessThan(CEILING_MS);
      expect((await timed(() => limiter.settle(before.lease!, 10))).ms).toBeLessThan(CEILING_MS);
      expect(limiter.metrics).toMatchObject({ localDecisions: 12, failedClosed: 1 });
    } finally {
      await redis.restart();
    }
    await expect.poll(async () => (await limiter.acquire(subject({ rpm: 30, tpm: 1_000 }), 1)).degraded).toBe(false);
  });

  it('black-holed: waits for the ceiling, then goes local (the next ones at once), then recovers', async () => {
    const limiter = await open();
    const who = subject({ rpm: 1000, tpm: 1_000_000 });
    await limiter.acquire(who, 1);
    // Longer than the ceiling, so that the limiter gives up on the silent connection and reopens it.
    await admin.call('CLIENT', 'PAUSE', String(CEILING_MS + 1_500), 'ALL');
    const paused = performance.now();
    const first = await timed(() => limiter.acquire(who, 1_000_000));
    expect(first.value.degraded).toBe(true);
    expect(first.ms).toBeGreaterThanOrEqual(CEILING_MS - 5);
    expect(first.ms).toBeLessThan(CEILING_MS + 1_000);
    const next = await timed(() => limiter.acquire(who, 1));
    expect(next.value.degraded).toBe(true);
    expect(next.ms).toBeLessThan(CEILING_MS);
    while (performance.now() - paused < CEILING_MS + 1_300) {
      const answer = await timed(() => limiter.acquire(who, 1));
      expect(answer.value.degraded).toBe(true);
      expect(answer.ms).toBeLessThan(CEILING_MS);
      await sleep(50);
    }
    expect(limiter.metrics.backendErrors).toBeGreaterThanOrEqual(1);
    await expect.poll(async () => (await limiter.acquire(who, 1)).degraded).toBe(false);
  });

  it('the gateway\'s own event-loop lag past the ceiling is not an outage: the reply read late still decides', async () => {
    const limiter = await open();
    const who = subject({ rpm: 10, tpm: 1_000_000 });
    const decision = limiter.acquire(who, 1);
    await new Promise((resolve) => setImmediate(resolve)); // the call goes out
    const blockedUntil = performance.now() + CEILING_MS + 500;
    while (performance.now() < blockedUntil); // a loop stalled by other work
    expect(await decision).toMatchObject({ allowed: true, degraded: false });
    expect(limiter.metrics).toMatchObject({ localDecisions: 0, failedClosed: 0, backendErrors: 0 });
    expect((await limiter.acquire(who, 1)).degraded).toBe(false);
  });

  it('gives back the slots of a holder that died, but not those of one that lives', async () => {
    const settings = { concurrency: 1 };
    const holder = await open(settings, LEASE_MS);
    const observer = await open(settings, LEASE_MS);
    const alive = subject({ rpm: 1000, tpm: 1_000_000 });
    const dying = subject({ rpm: 1000, tpm: 1_000_000 });
    expect((await holder.acquire(alive, 1)).allowed).toBe(true);
    const dyingHolder = await open(settings, LEASE_MS);
    expect((await dyingHolder.acquire(dying, 1)).allowed).toBe(true);
    await dyingHolder.close(); // no settle, no more renewals: as if the process had died
    await expect.poll(async () => (await observer.acquire(dying, 1)).allowed).toBe(true);
    await sleep(LEASE_MS); // a lease more: the living holder renews its slot
    expect((await observer.acquire(alive, 1)).limitedBy?.name).toBe('concurrency');
  });

  it('lets Redis keep the time: the production call passes no clock to the script', () => {
    const source = readFileSync(new URL('../../../src/ratelimit/redis-limiter.ts', import.meta.url), 'utf8');
    const calls = [...source.matchAll(/#script\.(\w+)\(([^)]*)\)/g)];
    expect(calls.map((call) => call[1])).toEqual(['sync']);
    expect(calls[0]![2]!.split(',')).toHaveLength(3);
  });
});
