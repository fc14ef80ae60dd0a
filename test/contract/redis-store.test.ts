import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('RedisStore with accounts made before the mailbox index', () => {
  it('indexes their mailboxes once, keeping accounts that share one', async () => {
    await admin.flushall();
    const store = await RedisStore.connect({ url: redis.url, commandTimeoutMs: 1_000, connectTimeoutMs: 1_000 });
    try {
      const old = await store.createAccount('old+tag@example.com');
      const twins = [await store.createAccount('twin+a@example.com'), await store.createAccount('twin+b@example.com')];
      // As an older munja left them: no mailbox index.
      const indexKeys = await admin.keys('munja:{store}:account-mailbox:*');
      expect(indexKeys.length).toBe(2);
      await admin.del(...indexKeys);
      await admin.hdel('munja:{store}:meta', 'mailboxesIndexed');

      expect(await store.createAccountWithPassword('old@example.com', 'hash')).toBeUndefined();
      expect(await store.createAccountWithPassword('twin+c@example.com', 'hash')).toBeUndefined();
      expect(await store.createAccountWithPassword('new@example.com', 'hash')).toBeDefined();
      expect(await store.findAccountByEmail('old+tag@example.com')).toEqual(old);
      for (const twin of twins) expect(await store.findAccountById(twin.id)).toEqual(twin);
      expect(await admin.hget('munja:{store}:meta', 'mailboxesIndexed')).toBe('1');
    } finally {
      await store.close();
    }
  });
});
