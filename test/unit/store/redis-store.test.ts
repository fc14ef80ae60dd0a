// What the Redis store adds to the contract: instances share one store, changes reach every
// instance's auth cache by pub/sub, and the CLI works against Redis.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { Authenticator } from '../../../src/auth/authenticator.ts';
import { digestApiKey } from '../../../src/auth/api-key.ts';
import { createApiKey } from '../../../src/auth/create-key.ts';
import type { RedisConfig } from '../../../src/config/config-types.ts';
import type { KeyEvent } from '../../../src/store/key-events.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { StoreWithEvents } from '../../../src/store/publishing-store.ts';
import { ResponseStorageFullError, type Store as StoredResponseStore, type StoredResponse } from '../../../src/store/store.ts';
import { startRedis, type TestRedis } from '../../helpers/redis-server.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const LIMITS = { rpm: 600, tpm: 1_000_000 };

let redis: TestRedis;
let admin: Redis;
let config: RedisConfig;
const opened: { close(): Promise<void> }[] = [];

async function open(): Promise<StoreWithEvents> {
  const store = await openStore({ dataDir: '/nonexistent', redis: config });
  opened.push(store);
  return store;
}

// Changes reach every instance within a second (pub/sub): the bound these tests wait for.
const WITHIN_1S = { timeout: 1_000, interval: 10 };

/** The error code auth answers for this key, or 'ok'. */
function outcome(auth: Authenticator, key: string): Promise<string> {
  return auth.authenticate(`Bearer ${key}`).then(() => 'ok', (error: { code: string }) => error.code);
}

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url, { lazyConnect: true });
  await admin.connect();
  config = { url: redis.url, commandTimeoutMs: 1_000, connectTimeoutMs: 1_000 };
});

afterAll(async () => {
  admin.disconnect();
  await redis.stop();
});

beforeEach(async () => {
  await admin.flushall();
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

describe('RedisStore', () => {
  it('is one store for every instance: a key created by one is found by another', async () => {
    const [one, two] = [await open(), await open()];
    const created = await createApiKey(one, { accountEmail: 'ana@example.com', createAccount: true });
    expect((await two.keySecret()).equals(await one.keySecret())).toBe(true);
    const found = await two.findKeyByDigest(digestApiKey(created.key, await two.keySecret()));
    expect(found).toEqual({ key: created.record, account: created.account });
  });

  it('keeps its indexes whole under concurrent creators', async () => {
    const stores = [await open(), await open(), await open()];
    const accounts = await Promise.all(Array.from({ length: 30 }, (_, i) => stores[i % 3]!.createAccount('Same@Example.com')));
    expect(new Set(accounts.map((account) => account.id)).size).toBe(1);
    expect(await stores[1]!.countAccounts()).toBe(1);
    await Promise.all(Array.from({ length: 30 }, (_, i) => createApiKey(stores[i % 3]!, { accountEmail: 'same@example.com' })));
    expect(await stores[2]!.listKeys(accounts[0]!.id)).toHaveLength(30);
    expect(await stores[0]!.listKeys()).toHaveLength(30);
  });

  it('lists more keys than one page, in creation order', async () => {
    const store = await open();
    const account = await store.createAccount('ana@example.com');
    const ids: string[] = [];
    for (let i = 0; i < 520; i++) ids.push((await createApiKey(store, { accountEmail: account.email, name: `k${i}` })).record.id);
    expect((await store.listKeys()).map((key) => key.id)).toEqual(ids);
  });

  it('indexes accounts and active keys made before those indexes existed, once, on first use', async () => {
    const store = await open();
    const old = await store.createAccount('old@example.com');
    await createApiKey(store, { accountEmail: 'old@example.com' });
    const revoked = await createApiKey(store, { accountEmail: 'old@example.com' });
    await store.revokeKey(revoked.record.id);
    // What an older Munja left behind: no accounts-by-time index, no active-keys set.
    await admin.del('munja:{store}:accounts-by-time', `munja:{store}:active-keys:${old.id}`);
    await admin.hdel(`munja:{store}:account:${old.id}`, 'activeKeysIndexed');
    expect(await store.listAccountPage(0, 10)).toEqual({ accounts: [old], total: 1 });
    expect(await store.countActiveKeys(old.id)).toBe(1);
    await expect(createApiKey(store, { accountEmail: 'old@example.com', maxKeys: 2 })).resolves.toBeDefined();
    await expect(createApiKey(store, { accountEmail: 'old@example.com', maxKeys: 2 })).rejects.toThrow(/already has 2 keys/);
  });

  it('gives usage counters an expiry and account and key records none', async () => {
    const store = await open();
    const { record } = await createApiKey(store, { accountEmail: 'ana@example.com', createAccount: true });
    await store.addUsage([{ keyId: record.id, day: '2026-01-01', model: 'model-a', requests: 1, promptTokens: 2, completionTokens: 3, costMicros: 4 }]);
    for (const key of await admin.keys('munja:*')) {
      const ttl = await admin.ttl(key);
      if (key.startsWith('munja:usage:')) expect(ttl, key).toBeGreaterThan(399 * 86_400);
      else expect(ttl, key).toBe(-1);
    }
  });

  it('reads the usage counted before models were as model "" at cost 0, next to the usage per model', async () => {
    const store = await open();
    const { record } = await createApiKey(store, { accountEmail: 'ana@example.com', createAccount: true });
    const prefix = `munja:usage:{${record.id}}:`;
    await admin.hset(`${prefix}2026-01-01`, 'requests', 3, 'promptTokens', 30, 'completionTokens', 300);
    await admin.zadd(`${prefix}days`, 0, '2026-01-01');
    await store.addUsage([{ keyId: record.id, day: '2026-01-01', model: 'model-a', requests: 1, promptTokens: 2, completionTokens: 3, costMicros: 4 }]);
    expect(await store.usageByDay([record.id], '2026-01-01', '2026-01-01')).toEqual([
      { keyId: record.id, day: '2026-01-01', model: '', requests: 3, promptTokens: 30, completionTokens: 300, costMicros: 0 },
      { keyId: record.id, day: '2026-01-01', model: 'model-a', requests: 1, promptTokens: 2, completionTokens: 3, costMicros: 4 },
    ]);
    expect(await store.usageByDay(null, '2026-01-01', '2026-01-01', '')).toHaveLength(1);
  });
});

describe('stored responses on Redis', () => {
  async function owner(store: StoredResponseStore, email: string) {
    const { account, record } = await createApiKey(store, { accountEmail: email, createAccount: true });
    return (body: string, expiresAt = Date.now() + 60_000): StoredResponse => ({
      id: `resp_${randomBytes(16).toString('hex')}`, accountId: account.id, keyId: record.id, createdAt: Date.now(), expiresAt, previousResponseId: null, body,
    });
  }

  it('keeps an account’s responses under its hash tag; each record expires at its expiresAt, the index with the last', async () => {
    const store = await open();
    const response = await owner(store, 'ana@example.com');
    const early = response('{"n":1}', Date.now() + 60_000);
    const late = response('{"n":2}', Date.now() + 120_000);
    await store.saveResponse(late, 1_000);
    await store.saveResponse(early, 1_000);
    const prefix = `munja:responses:{${early.accountId}}:`;
    expect((await admin.keys('munja:responses:*')).sort()).toEqual(
      [`${prefix}bytes`, `${prefix}expiry`, `${prefix}record:${early.id}`, `${prefix}record:${late.id}`, `${prefix}sizes`].sort(),
    );
    expect(await admin.pexpiretime(`${prefix}record:${early.id}`)).toBe(early.expiresAt);
    expect(await admin.pexpiretime(`${prefix}record:${late.id}`)).toBe(late.expiresAt);
    for (const index of ['bytes', 'expiry', 'sizes']) expect(await admin.pexpiretime(prefix + index), index).toBe(late.expiresAt);
    expect(await admin.get(`${prefix}bytes`)).toBe('14');
  });

  it('three instances saving at once never pass an account’s cap', async () => {
    const stores = [await open(), await open(), await open()];
    const response = await owner(stores[0]!, 'ana@example.com');
    const results = await Promise.allSettled(Array.from({ length: 60 }, (_, i) => stores[i % 3]!.saveResponse(response('x'.repeat(100)), 1_000)));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(10);
    for (const result of results) if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(ResponseStorageFullError);
    expect(await stores[1]!.storedResponseBytes(response('').accountId)).toBe(1_000);
  });

  it('forgets more expired responses than one script does, a batch at a time, before refusing a save or counting', async () => {
    const store = await open();
    const saving = await owner(store, 'ana@example.com');
    const counting = await owner(store, 'bob@example.com');
    const make = (response: typeof saving) => Array.from({ length: 1_200 }, () => store.saveResponse(response('x'.repeat(10)), 12_000));
    await Promise.all([...make(saving), ...make(counting)]);
    const accountOf = (response: typeof saving) => response('').accountId;
    expect(await store.storedResponseBytes(accountOf(counting))).toBe(12_000);

    // Past their expiresAt on this instance's clock, which decides; Redis still holds every key.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 120_000);
      const full = saving('y'.repeat(12_000));
      await store.saveResponse(full, 12_000);
      expect(await store.findResponse(full.accountId, full.id)).toEqual(full);
      expect(await admin.zcard(`munja:responses:{${full.accountId}}:expiry`)).toBe(1);
      expect(await store.storedResponseBytes(accountOf(counting))).toBe(0);
      expect(await admin.hlen(`munja:responses:{${accountOf(counting)}}:sizes`)).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('key events', () => {
  it('a revocation reaches a subscriber on another connection within 1 s', async () => {
    const [writer, reader] = [await open(), await open()];
    const received: KeyEvent[] = [];
    await reader.events.subscribe((event) => received.push(event));
    const { record } = await createApiKey(writer, { accountEmail: 'ana@example.com', createAccount: true });
    await writer.revokeKey(record.id);
    await expect.poll(() => received, WITHIN_1S).toEqual([{ kind: 'key', keyId: record.id }]);
  });

  it('another instance’s auth cache drops revoked keys and suspended accounts within 1 s, despite a 10 s TTL', async () => {
    const [writer, server] = [await open(), await open()];
    const auth = new Authenticator({ store: server, secret: await server.keySecret(), defaultLimits: LIMITS, cacheTtlMs: 10_000 });
    await server.events.subscribe((event) => auth.forget(event));
    const first = await createApiKey(writer, { accountEmail: 'ana@example.com', createAccount: true });
    const second = await createApiKey(writer, { accountEmail: 'ana@example.com' });
    await auth.authenticate(`Bearer ${first.key}`);
    await auth.authenticate(`Bearer ${second.key}`);

    await writer.setAccountStatus('ana@example.com', 'suspended');
    await expect.poll(() => outcome(auth, second.key), WITHIN_1S).toBe('account_suspended');
    await writer.setAccountStatus('ana@example.com', 'active');
    await expect.poll(() => outcome(auth, second.key), WITHIN_1S).toBe('ok');

    await writer.revokeKey(first.record.id);
    await expect.poll(() => outcome(auth, first.key), WITHIN_1S).toBe('invalid_api_key');
    expect(await outcome(auth, second.key)).toBe('ok');
  });

  it('the CLI works against Redis: a key it creates is found, and its revocation is announced', async () => {
    const store = await open();
    const received: KeyEvent[] = [];
    await store.events.subscribe((event) => received.push(event));

    const created = JSON.parse(await munja('keys', 'create', '--account', 'cli@example.com', '--json')) as { id: string; key: string };
    const found = await store.findKeyByDigest(digestApiKey(created.key, await store.keySecret()));
    expect(found?.key.id).toBe(created.id);
    expect(found?.account.email).toBe('cli@example.com');

    await munja('keys', 'revoke', created.id, '--json');
    expect((await store.findKeyByDigest(digestApiKey(created.key, await store.keySecret())))?.key.revokedAt).toBeTypeOf('number');
    await expect.poll(() => received, WITHIN_1S).toEqual([{ kind: 'key', keyId: created.id }]);
  });
});

function munja(...args: string[]): Promise<string> {
  const env = { ...process.env, REDIS_URL: redis.url, MUNJA_DATA: '/nonexistent/munja-must-not-use-this' };
  return new Promise((resolve, reject) => {
    execFile(join(ROOT, 'node_modules/.bin/node'), [join(ROOT, 'src/cli/munja.ts'), ...args], { env, cwd: ROOT }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`munja ${args.join(' ')} failed: ${stderr}`));
      else resolve(stdout);
    });
  });
}
