// Every place a secret the client sends is compared with one the service holds: the CSRF token
// (fixed-length timingSafeEqual), the password (scrypt output of the stored length, timingSafeEqual)
// and the API key (only its HMAC digest is looked up). A wrong value of any length, or of the same
// length, fails the same way and never throws (timingSafeEqual throws on unequal lengths).
import { createSecretKey, randomBytes, scryptSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestApiKey, generateApiKey } from '../../../src/auth/api-key.ts';
import { Authenticator } from '../../../src/auth/authenticator.ts';
import { dashboardConfig } from '../../../src/config/dashboard-config.ts';
import { PasswordHasher } from '../../../src/dashboard/password-hasher.ts';
import { Sessions } from '../../../src/dashboard/sessions.ts';
import type { DashboardHeaders } from '../../../src/http/request-context.ts';
import type { KeyWithAccount, Store } from '../../../src/store/store.ts';
import { SqliteStore } from '../../../src/store/sqlite-store.ts';

describe('CSRF token', () => {
  let dir: string;
  let store: SqliteStore;
  let sessions: Sessions;
  const headers = (cookie: string, csrfToken = ''): DashboardHeaders =>
    ({ cookie, origin: '', host: '', secFetchSite: '', csrfToken, ifNoneMatch: '', forwardedFor: '', remoteAddress: '' });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'munja-csrf-'));
    store = SqliteStore.open(dir);
    sessions = new Sessions(store, createSecretKey(randomBytes(32)), dashboardConfig({}));
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('accepts only its own session’s token, failing alike for any other of any length', async () => {
    const account = await store.createAccount('csrf@example.com');
    const signIn = async () => {
      const started = await sessions.start(headers(''), account.id);
      const cookie = started.cookie.split(';')[0]!;
      return { cookie, signedIn: await sessions.require(headers(cookie)) };
    };
    const mine = await signIn();
    const other = await signIn();
    const token = mine.signedIn.csrfToken;
    expect(() => sessions.checkCsrfToken(headers(mine.cookie, token), mine.signedIn)).not.toThrow();
    const flipped = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    for (const wrong of [flipped, other.signedIn.csrfToken, '', token.slice(0, -1), `${token}A`, 'é'.repeat(token.length), token.repeat(100)]) {
      expect(() => sessions.checkCsrfToken(headers(mine.cookie, wrong), mine.signedIn), wrong.slice(0, 20)).toThrow(expect.objectContaining({ code: 'csrf_failed' }));
    }
  });
});

describe('password', () => {
  it('compares a hash of the stored length, whatever that length is', async () => {
    const hasher = new PasswordHasher(1);
    const salt = Buffer.alloc(16, 3);
    const stored = (length: number) => `$scrypt$ln=14,r=8,p=1$${salt.toString('base64')}$${scryptSync('the password!', salt, length, { N: 2 ** 14, r: 8, p: 1 }).toString('base64')}`;
    for (const length of [16, 32, 64]) {
      expect((await hasher.verify('the password!', stored(length))).ok).toBe(true);
      expect((await hasher.verify('the passwore!', stored(length))).ok).toBe(false);
    }
  });
});

describe('API key', () => {
  it('is looked up only by its HMAC digest, and wrong keys of every kind fail alike', async () => {
    const secret = randomBytes(32);
    const good = generateApiKey();
    const revoked = generateApiKey();
    const asked: string[] = [];
    const record = (revokedAt: number | null): KeyWithAccount => ({
      key: { id: 'key_1', accountId: 'acc_1', name: '', prefix: '', lastFour: '', models: null, limits: { rpm: null, tpm: null }, createdAt: 0, lastUsedAt: null, revokedAt, admin: false },
      account: { id: 'acc_1', email: 'a@example.com', status: 'active', isAdmin: false, createdAt: 0 },
    });
    const records = new Map([[digestApiKey(good, secret), record(null)], [digestApiKey(revoked, secret), record(1)]]);
    const store = { async findKeyByDigest(digest: string) { asked.push(digest); return records.get(digest); } } as Partial<Store> as Store;
    const auth = new Authenticator({ store, secret, defaultLimits: { rpm: 1, tpm: 1 }, cacheTtlMs: 0 });
    const outcome = (key: string) => auth.authenticate(`Bearer ${key}`).then(() => 'ok', (error: { code: string }) => error.code);

    const badChecksum = good.slice(0, -1) + (good.endsWith('A') ? 'B' : 'A');
    expect(await outcome(good)).toBe('ok');
    for (const wrong of [generateApiKey(), revoked, badChecksum, `${good}x`, good.slice(0, -1), '']) expect(await outcome(wrong)).toBe('invalid_api_key');
    // Three lookups (good, unknown, revoked), each by a 64-hex digest, never the key; the broken
    // ones were refused by their shape and checksum before any lookup.
    expect(asked).toHaveLength(3);
    for (const digest of asked) expect(digest).toMatch(/^[0-9a-f]{64}$/);
  });
});
