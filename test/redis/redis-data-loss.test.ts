// A Redis that loses its data under a running instance (restarted without persistence, flushed)
// is noticed: the instance never goes on refusing, with a silent 401 while /readyz says ready, the
// keys the CLI creates afterwards.
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { digestApiKey } from '../../src/auth/api-key.ts';
import { createApiKey } from '../../src/auth/create-key.ts';
import { redisFrom } from '../../src/config/load-config.ts';
import { storeKeys } from '../../src/store/redis-keys.ts';
import { openStore } from '../../src/store/open-store.ts';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { startRedis, type TestRedis } from '../helpers/redis-server.ts';

// Up to a few of the instance's once-a-second checks.
const NOTICED = { timeout: 5_000, interval: 100 };

let redis: TestRedis;
let admin: Redis;
let gateway: TestGateway;
let logged: string;

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 100 });
  admin.on('error', () => {});
  await admin.connect();
});

afterAll(async () => {
  admin.disconnect();
  await redis.stop();
});

beforeEach(async () => {
  await admin.flushall();
  logged = '';
  const logs = new PassThrough();
  logs.on('data', (chunk: Buffer) => { logged += chunk.toString(); });
  gateway = await startGateway(FAST_TEST_CONFIG, { env: { REDIS_URL: redis.url }, logTo: logs });
});

afterEach(async () => {
  await gateway.close();
});

/** A key made the way `munja keys create` makes it: its own connection to the store. */
async function cliCreateKey(): Promise<string> {
  const store = await openStore({ dataDir: gateway.dataDir, redis: redisFrom({ REDIS_URL: redis.url }) });
  try {
    return (await createApiKey(store, { accountEmail: 'cli@example.com', createAccount: true })).key;
  } finally {
    await store.close();
  }
}

async function status(key: string): Promise<number> {
  return (await fetch(`${gateway.baseURL}/models`, { headers: { authorization: `Bearer ${key}` } })).status;
}

function logLines(): Array<Record<string, unknown>> {
  return logged.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('a Redis that lost its data', () => {
  it('restarted empty: a key the CLI creates afterwards works on the running instance', async () => {
    const before = await gateway.createKey();
    expect(await status(before.key)).toBe(200);

    await redis.restart();
    const after = await cliCreateKey();

    await vi.waitFor(async () => expect(await status(after)).toBe(200), NOTICED);
    expect(await status(before.key)).toBe(401); // lost with the data, here as everywhere
    const ready = await fetch(`${gateway.origin}/readyz`);
    expect(ready.status).toBe(200);
    await vi.waitFor(() => expect(logLines().some((line) => line['level'] === 40 && line['keySecret'] !== undefined)).toBe(true), NOTICED);
  });

  it('emptied: the instance writes its own secret back, so the fleet keeps one', async () => {
    const original = await admin.hget(storeKeys.meta, 'keySecret');
    expect(original).toMatch(/^[0-9a-f]{64}$/);

    await admin.flushall();

    await vi.waitFor(async () => expect(await admin.hget(storeKeys.meta, 'keySecret')).toBe(original), NOTICED);
    expect(await status(await cliCreateKey())).toBe(200);
    await vi.waitFor(() => expect(logLines().filter((line) => line['keySecret'] === 'restored')).toHaveLength(1), NOTICED);
    expect(logLines().find((line) => line['keySecret'] === 'restored')?.['level']).toBe(40);
  });

  it('emptied and given a new secret by another process: the instance adopts it, and keys it creates use it', async () => {
    const before = await gateway.createKey();
    expect(await status(before.key)).toBe(200);

    await admin.multi().flushall().hset(storeKeys.meta, 'keySecret', randomBytes(32).toString('hex')).exec();
    const after = await cliCreateKey();

    await vi.waitFor(async () => expect(await status(after)).toBe(200), NOTICED);
    expect(await status(before.key)).toBe(401);
    await vi.waitFor(() => expect(logLines().some((line) => line['keySecret'] === 'adopted' && line['level'] === 40)).toBe(true), NOTICED);

    // A key made through the running instance (the dashboard) is digested with the store's secret.
    const made = await gateway.createKey({ accountEmail: 'dashboard@example.com' });
    const fresh = await openStore({ dataDir: gateway.dataDir, redis: redisFrom({ REDIS_URL: redis.url }) });
    try {
      expect(await fresh.findKeyByDigest(digestApiKey(made.key, await fresh.keySecret()))).toBeDefined();
    } finally {
      await fresh.close();
    }
  });
});
