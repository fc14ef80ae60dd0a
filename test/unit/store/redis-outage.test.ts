// Redis trouble never hangs a request: calls fail fast while Redis is down or stuck, auth answers
// 503 (keys checked before keep working on their last known record, past their cache TTL), and
// everything resumes by itself when Redis is back.
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Authenticator } from '../../../src/auth/authenticator.ts';
import { DEFAULT_REDIS } from '../../../src/config/default-config.ts';
import { createApiKey } from '../../../src/auth/create-key.ts';
import { digestApiKey } from '../../../src/auth/api-key.ts';
import type { ApiError } from '../../../src/errors/api-error.ts';
import type { KeyEvent } from '../../../src/store/key-events.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { StoreWithEvents } from '../../../src/store/publishing-store.ts';
import { startRedis, type TestRedis } from '../../helpers/redis-server.ts';

// On the default deadline; the assertions below are bounds on hanging, not on speed.
const HANG_BOUND_MS = DEFAULT_REDIS.commandTimeoutMs + 1_000;
const CACHE_TTL_MS = 3_000;

let redis: TestRedis;
let admin: Redis;

async function open(startupBudgetMs?: number): Promise<StoreWithEvents> {
  return openStore({ dataDir: '/nonexistent', redis: { url: redis.url, ...DEFAULT_REDIS } }, { startupBudgetMs });
}

async function timed(work: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const start = performance.now();
  const error = await work().then(() => undefined, (failure: unknown) => failure ?? new Error('rejected'));
  return { error, ms: performance.now() - start };
}

const succeeds = (work: () => Promise<unknown>) => () => work().then(() => true, () => false);

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url, { lazyConnect: true });
  admin.on('error', () => {}); // it reconnects by itself across the kills below
  await admin.connect();
});

afterAll(async () => {
  admin.disconnect();
  await redis.stop();
});

beforeEach(async () => {
  await admin.flushall();
});

describe('Redis outages', () => {
  it('killed: lookups fail fast, auth answers 503 but serves keys checked before, past their TTL; restarted: the same store works again', async () => {
    const store = await open();
    const auth = new Authenticator({ store, secret: await store.keySecret(), defaultLimits: { rpm: 60, tpm: 1_000 }, cacheTtlMs: CACHE_TTL_MS });
    const cached = await createApiKey(store, { accountEmail: 'ana@example.com', createAccount: true });
    const uncached = await createApiKey(store, { accountEmail: 'ana@example.com' });
    const cachedAt = performance.now();
    await auth.authenticate(`Bearer ${cached.key}`);

    await redis.kill();
    const lookup = await timed(async () => store.findKeyByDigest(digestApiKey(uncached.key, await store.keySecret())));
    expect(lookup.error).toBeInstanceOf(Error);
    expect(lookup.ms).toBeLessThan(HANG_BOUND_MS);
    const refused = await timed(() => auth.authenticate(`Bearer ${uncached.key}`));
    expect(refused.ms).toBeLessThan(HANG_BOUND_MS);
    expect(refused.error).toMatchObject({ code: 'auth_unavailable', status: 503 } satisfies Partial<ApiError>);
    expect(performance.now() - cachedAt).toBeLessThan(CACHE_TTL_MS);
    expect((await auth.authenticate(`Bearer ${cached.key}`)).keyId).toBe(cached.record.id);

    await sleep(CACHE_TTL_MS - (performance.now() - cachedAt) + 1); // past the cache TTL
    expect((await auth.authenticate(`Bearer ${cached.key}`)).keyId).toBe(cached.record.id);

    await redis.restart(); // empty: the test server keeps nothing
    await expect.poll(succeeds(() => store.countAccounts())).toBe(true);
    expect(await store.findKeyByDigest(digestApiKey(cached.key, await store.keySecret()))).toBeUndefined();
    expect((await store.createAccount('bo@example.com')).email).toBe('bo@example.com');
    await store.close();
  });

  it('stuck (SIGSTOP): every call ends at the command deadline, and works again once Redis answers', async () => {
    const store = await open();
    const account = await store.createAccount('ana@example.com');
    const pid = Number(/process_id:(\d+)/.exec(await admin.info('server'))?.[1]);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGSTOP');
    try {
      for (const call of [() => store.findKeyByDigest('0'.repeat(64)), () => store.findAccountById(account.id), () => store.revokeKey('key_x')]) {
        const { error, ms } = await timed(call);
        expect(String(error)).toMatch(/timed out/i);
        expect(ms).toBeLessThan(HANG_BOUND_MS);
      }
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await expect.poll(succeeds(() => store.findAccountById(account.id))).toBe(true);
    expect(await store.findAccountById(account.id)).toEqual(account);
    await store.close();
  });

  it('the subscription survives a restart, and the reconnect tells subscribers to forget everything', async () => {
    const [reader, writer] = [await open(), await open()];
    const received: KeyEvent[] = [];
    await reader.events.subscribe((event) => received.push(event));

    await redis.restart();
    await expect.poll(() => received).toContainEqual({ kind: 'all' });
    await expect.poll(succeeds(() => writer.countAccounts())).toBe(true);
    const { record } = await createApiKey(writer, { accountEmail: 'ana@example.com', createAccount: true });
    await writer.revokeKey(record.id);
    await expect.poll(() => received, { timeout: 1_000 }).toContainEqual({ kind: 'key', keyId: record.id }); // revocation reaches instances within a second
    expect(received).toEqual([{ kind: 'all' }, { kind: 'key', keyId: record.id }]);
    await Promise.all([reader.close(), writer.close()]);
  });

  it('an unreachable Redis at start is a clear error once the start-up budget is spent', async () => {
    await redis.kill();
    try {
      const { error, ms } = await timed(() => open(600));
      expect(String(error)).toMatch(/cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
      expect(ms).toBeLessThan(HANG_BOUND_MS);
    } finally {
      await redis.restart();
      await expect.poll(succeeds(() => admin.ping())).toBe(true);
    }
  });
});
