// Issue 20, finding 3, below the HTTP layer (where the hash queue's per-address share would hide
// it): the attempt must be counted atomically before the hash, so that 40 attempts at once on one
// account from one address let exactly `accountFailures` through to the hash — on munja.db and on
// Redis. Before, the count was read before the hash and written after it, and all 40 passed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.ts';
import { SignInThrottle } from '../../../src/dashboard/sign-in-throttle.ts';
import { RedisStore } from '../../../src/store/redis-store.ts';
import { SqliteStore } from '../../../src/store/sqlite-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { startRedis, type TestRedis } from '../../helpers/redis-server.ts';

let redis: TestRedis;
const dir = mkdtempSync(join(tmpdir(), 'munja-throttle-'));

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
});

const stores: Record<string, () => Promise<Store>> = {
  sqlite: async () => SqliteStore.open(join(dir, 'data')),
  redis: () => RedisStore.connect({ url: redis.url, commandTimeoutMs: 1_000, connectTimeoutMs: 1_000 }),
};

describe.each(Object.keys(stores))('SignInThrottle on %s', (kind) => {
  it('lets 5 of 40 parallel attempts reach the hash, on the defaults', async () => {
    const store = await stores[kind]!();
    try {
      const throttle = new SignInThrottle(store, loadConfig({}).dashboard);
      let hashes = 0;
      const attempt = async () => {
        await throttle.admit(`victim-${kind}@example.com`, '192.0.2.1');
        hashes++;
        await sleep(20); // the hash
        await throttle.recordFailure(`victim-${kind}@example.com`);
      };
      const results = await Promise.allSettled(Array.from({ length: 40 }, attempt));
      expect(hashes).toBe(5);
      for (const result of results) {
        if (result.status === 'rejected') expect(result.reason).toMatchObject({ code: 'sign_in_throttled' });
      }
      expect(results.filter((result) => result.status === 'rejected')).toHaveLength(35);
    } finally {
      await store.close();
    }
  });
});
