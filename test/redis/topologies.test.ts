// The store and limiter contracts, and exact admission by a fleet of limiters, on a real Redis
// Cluster (three masters, a replica each) and a real Sentinel set; then a failover under load:
// the master is killed while requests are decided, none of them hangs, and shared limits resume.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, DEFAULT_REDIS } from '../../src/config/default-config.ts';
import { RedisLimiter } from '../../src/ratelimit/redis-limiter.ts';
import { RedisStore } from '../../src/store/redis-store.ts';
import { type LimiterOptions, runLimiterContract, subject } from '../contract/limiter-contract.ts';
import { runStoreContract } from '../contract/store-contract.ts';
import { startRedisCluster, startRedisSentinel, type TestTopology } from '../helpers/redis-topology.ts';

const TOPOLOGIES = { 'Redis Cluster': startRedisCluster, 'Redis Sentinel': startRedisSentinel } as const;

for (const [name, start] of Object.entries(TOPOLOGIES)) {
  describe(name, () => {
    let topology: TestTopology;
    beforeAll(async () => { topology = await start(); }, 60_000);
    afterAll(async () => { await topology?.stop(); }); // unset when the start failed (it stops its own nodes then)

    const redisConfig = () => ({ url: topology.url, ...DEFAULT_REDIS });
    const openLimiter = (options: LimiterOptions = {}) => RedisLimiter.open(redisConfig(), {
      settings: { ...DEFAULT_LIMITS, ...options.settings }, leaseMs: options.slotExpiryMs, maxHoldMs: options.slotExpiryMs,
    });

    runStoreContract(`RedisStore on ${name}`, async () => {
      await topology.flush();
      return RedisStore.connect(redisConfig());
    });
    runLimiterContract(`RedisLimiter on ${name}`, openLimiter);

    it('3 limiters admit exactly 50 of 300 concurrent requests, 5 runs', async () => {
      const limiters = await Promise.all([0, 1, 2].map(() => openLimiter()));
      try {
        for (let run = 0; run < 5; run += 1) {
          const who = subject({ rpm: 50, tpm: 1_000_000 });
          const decisions = await Promise.all(Array.from({ length: 300 }, (_, i) => limiters[i % 3]!.acquire(who, 1)));
          expect(decisions.filter((decision) => decision.allowed)).toHaveLength(50);
          expect(decisions.some((decision) => decision.degraded)).toBe(false);
        }
      } finally {
        await Promise.all(limiters.map((limiter) => limiter.close()));
      }
    });

    it('fails over under load: no decision hangs, and shared limits resume', async () => {
      const limiter = await openLimiter();
      try {
        const who = subject({ rpm: 100_000, tpm: 100_000_000 });
        let stop = false;
        let decided = 0;
        let slowest = 0;
        const load = (async () => {
          while (!stop) {
            const started = performance.now();
            await limiter.acquire(who, 1).catch(() => null);
            slowest = Math.max(slowest, performance.now() - started);
            decided++;
            await sleep(5);
          }
        })();
        try {
          await expect.poll(() => decided).toBeGreaterThanOrEqual(20); // under load
          await topology.killMasterOf(`{${who.accountId}}`);
          // Shared again: a fresh key of 5 a minute admits exactly 5 of 8, none decided locally.
          await expect.poll(async () => {
            const probe = subject({ rpm: 5, tpm: 1_000_000 });
            const decisions = await Promise.all(Array.from({ length: 8 }, () => limiter.acquire(probe, 1)));
            return decisions.every((decision) => !decision.degraded) && decisions.filter((decision) => decision.allowed).length === 5;
          }, { timeout: 15_000, interval: 200 }).toBe(true);
        } finally {
          stop = true;
          await load;
        }
        expect(slowest).toBeLessThan(DEFAULT_REDIS.commandTimeoutMs + 1_000); // no decision waited past the ceiling
      } finally {
        await limiter.close();
      }
    }, 60_000);
  });
}
