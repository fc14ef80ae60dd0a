import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { RedisStore } from '../../src/store/redis-store.ts';
import { startRedis, type TestRedis } from '../helpers/redis-server.ts';
import { runStoreContract } from './store-contract.ts';

let redis: TestRedis;
let admin: Redis;

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url, { lazyConnect: true });
  await admin.connect();
});

afterAll(async () => {
  admin.disconnect();
  await redis.stop();
});

runStoreContract('RedisStore', async () => {
  // Each test starts empty: flush this suite's private server, never another.
  await admin.flushall();
  return RedisStore.connect({ url: redis.url, commandTimeoutMs: 1_000, connectTimeoutMs: 1_000 });
});
