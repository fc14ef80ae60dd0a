// The auth cache and key events: what a forget drops, lookups shared while in flight, no stale
// record cached by a lookup that raced a forget, and the last known answer while the store is down.
import { describe, expect, it } from 'vitest';
import { digestApiKey, generateApiKey } from '../../../src/auth/api-key.ts';
import { Authenticator } from '../../../src/auth/authenticator.ts';
import type { KeyWithAccount, Store } from '../../../src/store/store.ts';

const SECRET = Buffer.alloc(32, 7);

function record(keyId: string, accountId: string, revoked = false): KeyWithAccount {
  return {
    key: {
      id: keyId, accountId, name: '', prefix: 'sk_munja_abcd', lastFour: 'wxyz', models: null,
      limits: { rpm: null, tpm: null }, createdAt: 0, lastUsedAt: null, revokedAt: revoked ? 1 : null, admin: false,
    },
    account: { id: accountId, email: `${accountId}@example.com`, status: 'active', isAdmin: false, createdAt: 0 },
  };
}

/** A store whose records the test changes, counting lookups; `gate` holds lookups until released. */
function fakeStore() {
  const records = new Map<string, KeyWithAccount>();
  let gate: Promise<void> | undefined;
  const state = { lookups: 0, down: false, records, hold(): () => void {
    let release!: () => void;
    gate = new Promise((resolve) => { release = resolve; });
    return () => { gate = undefined; release(); };
  } };
  const store = {
    async findKeyByDigest(digest: string) {
      state.lookups++;
      if (state.down) throw new Error('store unreachable');
      const found = records.get(digest);
      await gate;
      return found;
    },
  } as Partial<Store> as Store;
  return { store, state };
}

function setUp(cacheTtlMs = 10_000) {
  const { store, state } = fakeStore();
  const auth = new Authenticator({ store, secret: SECRET, defaultLimits: { rpm: 1, tpm: 1 }, cacheTtlMs });
  const add = (keyId: string, accountId: string) => {
    const key = generateApiKey();
    state.records.set(digestApiKey(key, SECRET), record(keyId, accountId));
    return { key, revoke: () => state.records.set(digestApiKey(key, SECRET), record(keyId, accountId, true)) };
  };
  const outcome = (key: string) => auth.authenticate(`Bearer ${key}`).then(() => 'ok', (error: { code: string }) => error.code);
  return { auth, state, add, outcome };
}

describe('Authenticator and key events', () => {
  it('caches, and a key event drops only the entries it concerns', async () => {
    const { auth, state, add, outcome } = setUp();
    const one = add('key_1', 'acct_a');
    const two = add('key_2', 'acct_a');
    const three = add('key_3', 'acct_b');
    for (const { key } of [one, two, three]) expect(await outcome(key)).toBe('ok');
    one.revoke();
    two.revoke();
    three.revoke();
    expect(state.lookups).toBe(3);

    auth.forget({ kind: 'key', keyId: 'key_1' });
    expect([await outcome(one.key), await outcome(two.key), await outcome(three.key)]).toEqual(['invalid_api_key', 'ok', 'ok']);
    auth.forget({ kind: 'account', accountId: 'acct_a' });
    expect([await outcome(two.key), await outcome(three.key)]).toEqual(['invalid_api_key', 'ok']);
    auth.forget({ kind: 'all' });
    expect(await outcome(three.key)).toBe('invalid_api_key');
  });

  it('shares one lookup between concurrent requests for the same key', async () => {
    const { state, add, outcome } = setUp();
    const { key } = add('key_1', 'acct_a');
    const release = state.hold();
    const outcomes = Array.from({ length: 50 }, () => outcome(key));
    release();
    expect(await Promise.all(outcomes)).toEqual(Array(50).fill('ok'));
    expect(state.lookups).toBe(1);
  });

  it('does not cache what a lookup read before a forget that happened while it was in flight', async () => {
    const { auth, state, add, outcome } = setUp();
    const { key, revoke } = add('key_1', 'acct_a');
    const release = state.hold();
    const before = outcome(key);
    revoke();
    auth.forget({ kind: 'key', keyId: 'key_1' });
    release();
    expect(await before).toBe('ok'); // it was read before the revocation
    expect(await outcome(key)).toBe('invalid_api_key');
  });

  it('caches for 10 s at most, whatever it is given', async () => {
    const { state, add, outcome } = setUp(60_000);
    const { key } = add('key_1', 'acct_a');
    const realNow = Date.now;
    try {
      const start = realNow();
      Date.now = () => start;
      await outcome(key);
      Date.now = () => start + 9_999;
      await outcome(key);
      expect(state.lookups).toBe(1);
      Date.now = () => start + 10_001;
      await outcome(key);
      expect(state.lookups).toBe(2);
    } finally {
      Date.now = realNow;
    }
  });

  it('answers from the last known lookup, however old, while the store cannot be reached; 503 for a key never seen', async () => {
    const { auth, state, add, outcome } = setUp(1_000);
    const known = add('key_1', 'acct_a');
    const revokedBefore = add('key_2', 'acct_a');
    const unseen = add('key_3', 'acct_b');
    const realNow = Date.now;
    try {
      const start = realNow();
      Date.now = () => start;
      expect(await outcome(known.key)).toBe('ok');
      expect(await outcome(revokedBefore.key)).toBe('ok');
      revokedBefore.revoke();
      auth.forget({ kind: 'key', keyId: 'key_2' }); // an event received before the outage counts
      state.down = true;
      Date.now = () => start + 600_000;
      expect(await outcome(known.key)).toBe('ok');
      expect(await outcome(revokedBefore.key)).toBe('auth_unavailable');
      expect(await outcome(unseen.key)).toBe('auth_unavailable');
      state.down = false;
      known.revoke();
      expect(await outcome(known.key)).toBe('invalid_api_key'); // back: the store decides again
    } finally {
      Date.now = realNow;
    }
  });
});

describe('Authenticator and the Authorization header', () => {
  const answer = (auth: Authenticator, authorization: string) =>
    auth.authenticate(authorization).then(() => 'ok', (error: { code: string }) => error.code);

  it('takes the key after `Bearer` in any case, spaces before it and whitespace after it', async () => {
    const { auth, add } = setUp();
    const { key } = add('key_1', 'acct_a');
    for (const authorization of [`Bearer ${key}`, `bearer ${key}`, `BEARER   ${key}`, `bEaReR ${key} `, `Bearer ${key}\t`, `Bearer ${key}\u00a0`]) {
      expect(await answer(auth, authorization)).toBe('ok');
    }
  });

  it('refuses an authorization without a well-formed bearer key', async () => {
    const { auth, add } = setUp();
    const { key } = add('key_1', 'acct_a');
    for (const authorization of [
      '', 'Bearer', 'Bearer ', 'Bearer    ', key, `Bearer\t${key}`, `Bearer${key}`, `Basic ${key}`, `Bearer ${key} x`,
      `Bearer ${key}\u00e9`, `Bearer \u00a0${key}`, `Bearer ${key.slice(0, -1)}`, `Bearerx ${key}`,
    ]) {
      expect(await answer(auth, authorization)).toBe('invalid_api_key');
    }
  });
});

describe('Authenticator: admin keys and rotated secrets', () => {
  it('refuses an admin key outside the admin API and an ordinary key inside it, cached or not', async () => {
    const { auth, state, add, outcome } = setUp();
    const admin = add('key_admin', 'acct_a');
    const digest = digestApiKey(admin.key, SECRET);
    const found = state.records.get(digest)!;
    state.records.set(digest, { ...found, key: { ...found.key, admin: true } });
    const ordinary = add('key_plain', 'acct_a');
    const adminOutcome = (key: string) => auth.authenticateAdmin(`Bearer ${key}`).then((p) => p.keyId, (error: { code: string }) => error.code);
    for (let round = 0; round < 2; round++) {
      expect(await outcome(admin.key)).toBe('admin_key_not_allowed');
      expect(await adminOutcome(admin.key)).toBe('key_admin');
      expect(await outcome(ordinary.key)).toBe('ok');
      expect(await adminOutcome(ordinary.key)).toBe('admin_required');
    }
    expect(state.lookups).toBe(2);
    expect(await adminOutcome('sk_munja_nope')).toBe('invalid_api_key');
  });

  it('refuses an old secret once its grace is over, from the cache and as the last known answer', async () => {
    const { auth, state, add, outcome } = setUp();
    const old = add('key_1', 'acct_a');
    const digest = digestApiKey(old.key, SECRET);
    state.records.set(digest, { ...state.records.get(digest)!, secretExpiresAt: Date.now() + 100 });
    expect(await outcome(old.key)).toBe('ok');
    // The cached answer lasts no longer than the grace, and the store down afterwards changes nothing.
    await expect.poll(() => auth.cachedPrincipal(`Bearer ${old.key}`), { timeout: 5_000 }).toBeUndefined();
    state.down = true;
    expect(await outcome(old.key)).toBe('invalid_api_key');
    state.down = false;
    expect(await outcome(old.key)).toBe('invalid_api_key');
  });

  it('refuses a key from its expiry on: the cached answer lasts no longer, nor the last known answer', async () => {
    const { auth, state, add, outcome } = setUp();
    const realNow = Date.now;
    const start = realNow();
    try {
      Date.now = () => start;
      const { key } = add('key_1', 'acct_a');
      const digest = digestApiKey(key, SECRET);
      const found = state.records.get(digest)!;
      state.records.set(digest, { ...found, key: { ...found.key, expiresAt: start + 5_000 } });
      expect(await outcome(key)).toBe('ok');
      Date.now = () => start + 4_999;
      expect(auth.cachedPrincipal(`Bearer ${key}`)?.keyId).toBe('key_1');
      Date.now = () => start + 5_000;
      expect(auth.cachedPrincipal(`Bearer ${key}`)).toBeUndefined();
      state.down = true;
      expect(await outcome(key)).toBe('invalid_api_key');
      state.down = false;
      expect(await outcome(key)).toBe('invalid_api_key');
      // The refusal is cached like a revoked key's.
      const lookups = state.lookups;
      expect(await outcome(key)).toBe('invalid_api_key');
      expect(state.lookups).toBe(lookups);
    } finally {
      Date.now = realNow;
    }
  });

  it('takes a key whose expiry is still ahead, or cleared, and carries its own and its account\'s budgets', async () => {
    const { auth, state, add } = setUp();
    const { key } = add('key_1', 'acct_a');
    const digest = digestApiKey(key, SECRET);
    const found = state.records.get(digest)!;
    const keyBudget = { limit: 5, period: 'day' as const };
    const accountBudget = { limit: 9, period: 'total' as const };
    state.records.set(digest, { key: { ...found.key, expiresAt: null, budget: keyBudget }, account: { ...found.account, budget: accountBudget } });
    expect(await auth.authenticate(`Bearer ${key}`)).toMatchObject({ keyId: 'key_1', keyBudget, accountBudget });
  });
});
