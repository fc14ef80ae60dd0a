// The behaviour every Store implementation must share. Each test gets a fresh, empty store.
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApiKeyRecord, KeyCapError, type NewAuditEntry, type NewKey, ResponseStorageFullError, type Store, type StoredResponse } from '../../src/store/store.ts';

const MiB = 1024 * 1024;

function newKey(accountId: string, overrides: Partial<NewKey> = {}): NewKey {
  return {
    accountId,
    digest: randomBytes(32).toString('hex'),
    name: 'test key',
    prefix: 'sk_munja_abcd',
    lastFour: 'wxyz',
    models: null,
    limits: { rpm: null, tpm: null },
    ...overrides,
  };
}

interface Owner {
  readonly accountId: string;
  readonly keyId: string;
}

async function owner(store: Store, email: string): Promise<Owner> {
  const account = await store.createAccount(email);
  return { accountId: account.id, keyId: (await store.createKey(newKey(account.id))).id };
}

function storedResponse(by: Owner, overrides: Partial<StoredResponse> = {}): StoredResponse {
  const now = Date.now();
  return {
    id: `resp_${randomBytes(16).toString('hex')}`, accountId: by.accountId, keyId: by.keyId, createdAt: now, expiresAt: now + 60_000,
    previousResponseId: null, body: '{"object":"response","output":[]}', ...overrides,
  };
}

export function runStoreContract(name: string, makeStore: () => Promise<Store>): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;

    beforeEach(async () => {
      store = await makeStore();
    });

    afterEach(async () => {
      await store.close();
    });

    describe('key secret', () => {
      it('is 32 bytes and the same on every call', async () => {
        const secret = await store.keySecret();
        expect(secret).toHaveLength(32);
        expect((await store.keySecret()).equals(secret)).toBe(true);
      });

      it('cannot be changed through the returned buffer', async () => {
        const secret = await store.keySecret();
        const copy = Buffer.from(secret);
        secret.fill(0);
        expect((await store.keySecret()).equals(copy)).toBe(true);
      });
    });

    describe('accounts', () => {
      it('creates an active, non-admin account with a normalised email', async () => {
        expect(await store.countAccounts()).toBe(0);
        const account = await store.createAccount('  Alice@Example.COM ');
        expect(account).toMatchObject({ email: 'alice@example.com', status: 'active', isAdmin: false });
        expect(account.id).toMatch(/^acct_[0-9A-Za-z]{24}$/);
        expect(account.createdAt).toBeGreaterThan(Date.now() - 60_000);
        expect(Object.isFrozen(account)).toBe(true);
        expect(await store.countAccounts()).toBe(1);
      });

      it('creates admins when asked', async () => {
        expect((await store.createAccount('root@example.com', { isAdmin: true })).isAdmin).toBe(true);
      });

      it('returns the existing account, unchanged, when the email is taken in any case', async () => {
        const first = await store.createAccount('alice@example.com');
        const again = await store.createAccount('ALICE@example.com', { isAdmin: true });
        expect(again).toEqual(first);
        expect(await store.countAccounts()).toBe(1);
      });

      it('rejects implausible emails', async () => {
        for (const bad of [
          '', '   ', 'alice', 'alice@', '@example.com', 'a b@example.com', 'alice@.com', 'alice@example.', 'a@b@example.com',
          // What a mailer reads as a display name, a list, a comment or a quoted local part (issue 33).
          'one<me@example.com>', 'two <me@example.com>', 'Me <me@example.com>', 'x,me@example.com', 'me@example.com, you@example.com',
          'me@example.com;you@example.com', '"me"@example.com', 'me(comment)@example.com', 'group:me@example.com', 'a..b@example.com',
        ]) {
          await expect(store.createAccount(bad), bad).rejects.toThrow(RangeError);
        }
        expect(await store.countAccounts()).toBe(0);
        expect((await store.createAccount('admin@localhost')).email).toBe('admin@localhost');
      });

      it('finds accounts by email in any case and by id', async () => {
        const account = await store.createAccount('alice@example.com');
        expect(await store.findAccountByEmail(' ALICE@EXAMPLE.COM')).toEqual(account);
        expect(await store.findAccountById(account.id)).toEqual(account);
        expect(await store.findAccountByEmail('bob@example.com')).toBeUndefined();
        expect(await store.findAccountById('acct_000000000000000000000000')).toBeUndefined();
      });

      it('suspends, resumes, and grants or removes admin', async () => {
        await store.createAccount('alice@example.com');
        expect((await store.setAccountStatus('Alice@example.com', 'suspended'))?.status).toBe('suspended');
        expect((await store.findAccountByEmail('alice@example.com'))?.status).toBe('suspended');
        expect((await store.setAccountStatus('alice@example.com', 'active'))?.status).toBe('active');
        expect((await store.setAccountAdmin('alice@example.com', true))?.isAdmin).toBe(true);
        expect((await store.setAccountAdmin('alice@example.com', false))?.isAdmin).toBe(false);
      });

      it('returns undefined when changing an unknown account', async () => {
        expect(await store.setAccountStatus('nobody@example.com', 'suspended')).toBeUndefined();
        expect(await store.setAccountAdmin('nobody@example.com', true)).toBeUndefined();
        expect(await store.countAccounts()).toBe(0);
      });
    });

    describe('keys', () => {
      it('creates a key and finds it with its account by digest', async () => {
        const account = await store.createAccount('alice@example.com');
        const input = newKey(account.id, { models: ['a', 'b'], limits: { rpm: 60, tpm: 10_000 } });
        const key = await store.createKey(input);
        expect(key).toEqual({
          id: key.id, accountId: account.id, name: 'test key', prefix: 'sk_munja_abcd', lastFour: 'wxyz',
          models: ['a', 'b'], limits: { rpm: 60, tpm: 10_000 }, createdAt: key.createdAt, lastUsedAt: null, revokedAt: null, admin: false,
          expiresAt: null, budget: null, priority: null, cache: null,
        });
        expect(key.id).toMatch(/^key_[0-9A-Za-z]{24}$/);
        expect(key).not.toHaveProperty('digest');
        expect(Object.isFrozen(key) && Object.isFrozen(key.limits) && Object.isFrozen(key.models)).toBe(true);

        const found = await store.findKeyByDigest(input.digest);
        expect(found).toEqual({ key, account });
        expect(Object.isFrozen(found)).toBe(true);
      });

      it('keeps models null (all models) distinct from a list', async () => {
        const account = await store.createAccount('alice@example.com');
        const input = newKey(account.id);
        await store.createKey(input);
        expect((await store.findKeyByDigest(input.digest))?.key.models).toBeNull();
      });

      it('returns undefined for an unknown digest', async () => {
        expect(await store.findKeyByDigest('0'.repeat(64))).toBeUndefined();
      });

      it('refuses a duplicate digest', async () => {
        const account = await store.createAccount('alice@example.com');
        const input = newKey(account.id);
        await store.createKey(input);
        await expect(store.createKey(newKey(account.id, { digest: input.digest }))).rejects.toThrow();
      });

      it('shows the account status through the key lookup', async () => {
        const account = await store.createAccount('alice@example.com');
        const input = newKey(account.id);
        await store.createKey(input);
        await store.setAccountStatus('alice@example.com', 'suspended');
        expect((await store.findKeyByDigest(input.digest))?.account.status).toBe('suspended');
      });

      it('lists all keys, or one account’s, in creation order', async () => {
        const alice = await store.createAccount('alice@example.com');
        const bob = await store.createAccount('bob@example.com');
        const a1 = await store.createKey(newKey(alice.id, { name: 'a1' }));
        const b1 = await store.createKey(newKey(bob.id, { name: 'b1' }));
        const a2 = await store.createKey(newKey(alice.id, { name: 'a2' }));
        expect((await store.listKeys()).map((k) => k.id).sort()).toEqual([a1.id, a2.id, b1.id].sort());
        expect((await store.listKeys(alice.id)).map((k) => k.name)).toEqual(['a1', 'a2']);
        expect(await store.listKeys('acct_000000000000000000000000')).toEqual([]);
      });

      it('revokes once: the key is still found, with the first revocation time', async () => {
        const account = await store.createAccount('alice@example.com');
        const input = newKey(account.id);
        const key = await store.createKey(input);
        const revoked = await store.revokeKey(key.id);
        expect(revoked?.revokedAt).toBeTypeOf('number');
        expect((await store.findKeyByDigest(input.digest))?.key.revokedAt).toBe(revoked?.revokedAt);
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect((await store.revokeKey(key.id))?.revokedAt).toBe(revoked?.revokedAt);
      });

      it('lists one account’s keys a page at a time, newest first, with the total', async () => {
        const alice = await store.createAccount('alice@example.com');
        const bob = await store.createAccount('bob@example.com');
        for (let i = 0; i < 7; i++) await store.createKey(newKey(alice.id, { name: `a${i}` }));
        await store.createKey(newKey(bob.id, { name: 'b0' }));
        const first = await store.listKeyPage(alice.id, 0, 3);
        expect(first.total).toBe(7);
        expect(first.keys.map((k) => k.name)).toEqual(['a6', 'a5', 'a4']);
        expect((await store.listKeyPage(alice.id, 6, 3)).keys.map((k) => k.name)).toEqual(['a0']);
        expect(await store.listKeyPage('acct_000000000000000000000000', 0, 3)).toEqual({ keys: [], total: 0 });
      });

      it('finds a key by id', async () => {
        const account = await store.createAccount('alice@example.com');
        const key = await store.createKey(newKey(account.id, { name: 'mine' }));
        expect(await store.findKeyById(key.id)).toEqual(key);
        expect(await store.findKeyById('key_000000000000000000000000')).toBeUndefined();
      });

      it('caps the keys an account has that are not revoked, atomically, even when asked in parallel', async () => {
        const account = await store.createAccount('alice@example.com');
        const other = await store.createAccount('bob@example.com');
        const results = await Promise.allSettled(Array.from({ length: 8 }, () => store.createKey(newKey(account.id), 3)));
        const made = results.filter((result) => result.status === 'fulfilled');
        expect(made).toHaveLength(3);
        for (const result of results) if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(KeyCapError);
        await expect(store.createKey(newKey(other.id), 3)).resolves.toBeDefined();
        await store.revokeKey((made[0] as PromiseFulfilledResult<ApiKeyRecord>).value.id);
        await store.revokeKey((made[0] as PromiseFulfilledResult<ApiKeyRecord>).value.id); // twice frees one place only
        await expect(store.createKey(newKey(account.id), 3)).resolves.toBeDefined();
        await expect(store.createKey(newKey(account.id), 3)).rejects.toBeInstanceOf(KeyCapError);
        await expect(store.createKey(newKey(account.id))).resolves.toBeDefined(); // no cap asked: the operator's bootstrap
      });

      it('returns undefined when revoking an unknown key', async () => {
        expect(await store.revokeKey('key_000000000000000000000000')).toBeUndefined();
      });

      it('marks keys used, never moving the time backwards, and ignores unknown ids', async () => {
        const account = await store.createAccount('alice@example.com');
        const one = await store.createKey(newKey(account.id));
        const two = await store.createKey(newKey(account.id));
        await store.markKeysUsed([one.id, two.id, 'key_unknown'], 2_000);
        await store.markKeysUsed([one.id], 1_000);
        await store.markKeysUsed([], 3_000);
        const byId = new Map((await store.listKeys()).map((k) => [k.id, k.lastUsedAt]));
        expect(byId.get(one.id)).toBe(2_000);
        expect(byId.get(two.id)).toBe(2_000);
      });
    });

    describe('dashboard credentials', () => {
      it('creates an account with a password once; a taken email is refused untouched', async () => {
        const account = await store.createAccountWithPassword(' Ana@Example.com ', 'hash-1');
        expect(account).toMatchObject({ email: 'ana@example.com', status: 'active', isAdmin: false });
        expect(Object.isFrozen(account)).toBe(true);
        expect(await store.findPasswordHash(account!.id)).toBe('hash-1');
        expect(await store.createAccountWithPassword('ANA@example.com', 'hash-2')).toBeUndefined();
        expect(await store.findPasswordHash(account!.id)).toBe('hash-1');
        expect(await store.countAccounts()).toBe(1);
        expect(await store.findAccountByEmail('ana@example.com')).toEqual(account);
      });

      it('refuses an account made by the CLI (no password) as taken', async () => {
        const cli = await store.createAccount('ops@example.com');
        expect(await store.createAccountWithPassword('ops@example.com', 'hash')).toBeUndefined();
        expect(await store.findPasswordHash(cli.id)).toBeUndefined();
      });

      it('rejects implausible emails', async () => {
        for (const bad of ['not-an-email', 'one<me@example.com>', 'x,me@example.com', '"me"@example.com']) {
          await expect(store.createAccountWithPassword(bad, 'hash'), bad).rejects.toThrow(RangeError);
        }
        expect(await store.countAccounts()).toBe(0);
      });

      it('allows one account per mailbox: a +tag or letter case does not make another', async () => {
        const ana = await store.createAccountWithPassword('ana@example.com', 'hash');
        for (const again of ['Ana+two@Example.com', 'ana+one@example.com', 'ANA@EXAMPLE.COM']) {
          expect(await store.createAccountWithPassword(again, 'other'), again).toBeUndefined();
        }
        const tagged = await store.createAccountWithPassword('bob+munja@example.com', 'hash');
        expect(tagged?.email).toBe('bob+munja@example.com');
        expect(await store.createAccountWithPassword('bob@example.com', 'other')).toBeUndefined();
        expect(await store.createAccountWithPassword('bob+other@example.com', 'other')).toBeUndefined();
        await store.createAccount('ops+cli@example.com');
        expect(await store.createAccountWithPassword('ops@example.com', 'other')).toBeUndefined();
        // A local part that starts with + is a mailbox of its own; other domains are other mailboxes.
        expect(await store.createAccountWithPassword('+ana@example.com', 'hash')).toBeDefined();
        expect(await store.createAccountWithPassword('ana@example.org', 'hash')).toBeDefined();
        expect(await store.findPasswordHash(ana!.id)).toBe('hash');
        expect(await store.countAccounts()).toBe(5);
      });

      it('sets and replaces a password only for an existing account', async () => {
        const account = await store.createAccount('ops@example.com');
        expect(await store.setPasswordHash(account.id, 'one')).toBe(true);
        expect(await store.setPasswordHash(account.id, 'two')).toBe(true);
        expect(await store.findPasswordHash(account.id)).toBe('two');
        expect(await store.setPasswordHash('acct_000000000000000000000000', 'x')).toBe(false);
        expect(await store.findPasswordHash('acct_000000000000000000000000')).toBeUndefined();
      });

      it('lists every account, oldest first', async () => {
        expect(await store.listAccounts()).toEqual([]);
        const a = await store.createAccount('a@example.com');
        await new Promise((resolve) => setTimeout(resolve, 2));
        const b = await store.createAccountWithPassword('b@example.com', 'hash');
        await store.setAccountStatus('a@example.com', 'suspended');
        expect(await store.listAccounts()).toEqual([{ ...a, status: 'suspended' }, b]);
      });

      it('lists accounts a page at a time, oldest first, with the total', async () => {
        expect(await store.listAccountPage(0, 2)).toEqual({ accounts: [], total: 0 });
        const made = [];
        for (const name of ['a', 'b', 'c']) {
          made.push(await store.createAccount(`${name}@example.com`));
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
        made.push((await store.createAccountWithPassword('d@example.com', 'hash'))!);
        expect(await store.listAccountPage(0, 2)).toEqual({ accounts: made.slice(0, 2), total: 4 });
        expect(await store.listAccountPage(2, 2)).toEqual({ accounts: made.slice(2), total: 4 });
        await store.createAccount('a@example.com'); // taken: no new account
        expect((await store.listAccountPage(4, 2)).total).toBe(4);
      });

      it('counts an account’s keys that are not revoked', async () => {
        const account = await store.createAccount('a@example.com');
        expect(await store.countActiveKeys(account.id)).toBe(0);
        const one = await store.createKey(newKey(account.id));
        await store.createKey(newKey(account.id));
        await store.revokeKey(one.id);
        expect(await store.countActiveKeys(account.id)).toBe(1);
        expect(await store.countActiveKeys('acct_000000000000000000000000')).toBe(0);
      });
    });

    describe('sessions', () => {
      const digest = () => randomBytes(32).toString('hex');

      it('creates, finds, extends and deletes a session', async () => {
        const account = await store.createAccount('a@example.com');
        const now = Date.now();
        const session = { digest: digest(), accountId: account.id, createdAt: now, expiresAt: now + 60_000 };
        await store.createSession(session);
        expect(await store.findSession(session.digest)).toEqual(session);
        await store.extendSession(session.digest, now + 120_000);
        expect((await store.findSession(session.digest))?.expiresAt).toBe(now + 120_000);
        await store.deleteSession(session.digest);
        expect(await store.findSession(session.digest)).toBeUndefined();
        await store.extendSession(session.digest, now + 120_000);
        expect(await store.findSession(session.digest)).toBeUndefined();
        await expect(store.deleteSession(session.digest)).resolves.toBeUndefined();
      });

      it('ends every session of one account, or every one but the one kept', async () => {
        const [alice, bob] = [await store.createAccount('alice@example.com'), await store.createAccount('bob@example.com')];
        const now = Date.now();
        const open = (accountId: string) => ({ digest: digest(), accountId, createdAt: now, expiresAt: now + 60_000 });
        const [kept, other, extended, bobs] = [open(alice.id), open(alice.id), open(alice.id), open(bob.id)];
        for (const session of [kept, other, extended, bobs]) await store.createSession(session);
        await store.extendSession(extended.digest, now + 120_000);
        expect(await store.deleteAccountSessions(alice.id, kept.digest)).toBe(2);
        expect(await store.findSession(other.digest)).toBeUndefined();
        expect(await store.findSession(extended.digest)).toBeUndefined();
        expect(await store.findSession(kept.digest)).toEqual(kept);
        expect(await store.findSession(bobs.digest)).toEqual(bobs);
        expect(await store.deleteAccountSessions(alice.id)).toBe(1);
        expect(await store.findSession(kept.digest)).toBeUndefined();
        expect(await store.deleteAccountSessions(alice.id)).toBe(0);
      });

      it('ends every session of an account that signed in many times', async () => {
        const account = await store.createAccount('alice@example.com');
        const now = Date.now();
        const sessions = Array.from({ length: 40 }, () => ({ digest: digest(), accountId: account.id, createdAt: now, expiresAt: now + 60_000 }));
        for (const session of sessions) {
          await store.createSession(session);
          // Signed out again, except the last ten.
          if (sessions.indexOf(session) < 30) await store.deleteSession(session.digest);
        }
        expect(await store.deleteAccountSessions(account.id)).toBe(10);
        for (const session of sessions) expect(await store.findSession(session.digest)).toBeUndefined();
      });

      it('does not find an expired session', async () => {
        const account = await store.createAccount('a@example.com');
        const now = Date.now();
        const session = { digest: digest(), accountId: account.id, createdAt: now, expiresAt: now + 50 };
        await store.createSession(session);
        await new Promise((resolve) => setTimeout(resolve, 80));
        expect(await store.findSession(session.digest)).toBeUndefined();
        expect(await store.findSession(digest())).toBeUndefined();
      });
    });

    describe('attempt windows', () => {
      it('counts attempts within a window, then starts again', async () => {
        expect(await store.findAttempts('ip:1')).toBeUndefined();
        const before = Date.now();
        const first = await store.countAttempt('ip:1', 100);
        expect(first.count).toBe(1);
        expect(first.resetAt).toBeGreaterThanOrEqual(before + 50);
        expect(first.resetAt).toBeLessThanOrEqual(Date.now() + 100);
        expect((await store.countAttempt('ip:1', 100)).count).toBe(2);
        expect((await store.countAttempt('ip:2', 100)).count).toBe(1);
        expect((await store.findAttempts('ip:1'))?.count).toBe(2);
        await new Promise((resolve) => setTimeout(resolve, 150));
        expect(await store.findAttempts('ip:1')).toBeUndefined();
        expect((await store.countAttempt('ip:1', 100)).count).toBe(1);
      });

      it('clears a window', async () => {
        await store.countAttempt('account:a@example.com', 60_000);
        await store.clearAttempts('account:a@example.com');
        expect(await store.findAttempts('account:a@example.com')).toBeUndefined();
        await expect(store.clearAttempts('never')).resolves.toBeUndefined();
      });
    });

    describe('single-use tokens', () => {
      it('gives a token’s payload once, for its kind only, and not after it expires', async () => {
        const digest = 'ab'.repeat(32);
        await store.saveToken({ digest, kind: 'invite', payload: '{"by":"acct_x"}', expiresAt: Date.now() + 60_000 });
        expect(await store.takeToken(digest, 'verify')).toBeUndefined();
        expect(await store.takeToken(digest, 'invite')).toBe('{"by":"acct_x"}');
        expect(await store.takeToken(digest, 'invite')).toBeUndefined();
        await store.saveToken({ digest, kind: 'verify', payload: '{}', expiresAt: Date.now() + 50 });
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(await store.takeToken(digest, 'verify')).toBeUndefined();
      });
    });

    describe('single-use tokens, looked at before use', () => {
      it('finds a token without using it, for its kind only, and not after it expires', async () => {
        const digest = 'cd'.repeat(32);
        const token = { digest, kind: 'invite', payload: '{"by":"acct_x"}', expiresAt: Date.now() + 60_000 } as const;
        await store.saveToken(token);
        expect(await store.findToken(digest, 'invite')).toEqual(token);
        expect(await store.findToken(digest, 'invite')).toEqual(token);
        expect(await store.findToken(digest, 'verify')).toBeUndefined();
        expect(await store.takeToken(digest, 'invite')).toBe(token.payload);
        expect(await store.findToken(digest, 'invite')).toBeUndefined();
        // Saved again (an invite given back when its account could not be made), it works again.
        await store.saveToken(token);
        expect(await store.takeToken(digest, 'invite')).toBe(token.payload);
        await store.saveToken({ ...token, expiresAt: Date.now() + 50 });
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(await store.findToken(digest, 'invite')).toBeUndefined();
      });
    });

    describe('stored responses', () => {
      let alice: Owner;
      let bob: Owner;

      beforeEach(async () => {
        alice = await owner(store, 'alice@example.com');
        bob = await owner(store, 'bob@example.com');
      });

      const saved = async (record: StoredResponse, max = MiB) => {
        await store.saveResponse(record, max);
        return record;
      };
      const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

      it('saves, finds and deletes a response, which comes back as saved and frozen', async () => {
        const first = await saved(storedResponse(alice));
        const second = await saved(storedResponse(alice, { previousResponseId: first.id, body: '{"output":[{"type":"message"}]}' }));
        const found = await store.findResponse(alice.accountId, second.id);
        expect(found).toEqual(second);
        expect(Object.isFrozen(found)).toBe(true);
        expect(await store.findResponse(alice.accountId, first.id)).toEqual(first);
        expect(await store.findResponse(alice.accountId, 'resp_unknown')).toBeUndefined();
        expect(await store.storedResponseBytes(alice.accountId)).toBe(first.body.length + second.body.length);

        expect(await store.deleteResponse(alice.accountId, first.id)).toBe(true);
        expect(await store.findResponse(alice.accountId, first.id)).toBeUndefined();
        expect(await store.deleteResponse(alice.accountId, first.id)).toBe(false);
        expect(await store.storedResponseBytes(alice.accountId)).toBe(second.body.length);
        expect(await store.findResponse(alice.accountId, second.id)).toEqual(second);
      });

      it('finds, deletes and counts a response only under its own account: another account’s id looks missing', async () => {
        const record = await saved(storedResponse(alice));
        expect(await store.findResponse(bob.accountId, record.id)).toBeUndefined();
        expect(await store.deleteResponse(bob.accountId, record.id)).toBe(false);
        expect(await store.storedResponseBytes(bob.accountId)).toBe(0);
        expect(await store.findResponse(alice.accountId, record.id)).toEqual(record);
        // Saving under the same id gives the other account a record of its own, never this one.
        const bobs = await saved(storedResponse(bob, { id: record.id, body: '"bob"' }));
        expect(await store.findResponse(bob.accountId, record.id)).toEqual(bobs);
        expect(await store.findResponse(alice.accountId, record.id)).toEqual(record);
        expect(await store.deleteResponse(bob.accountId, record.id)).toBe(true);
        expect(await store.findResponse(alice.accountId, record.id)).toEqual(record);
        expect(await store.storedResponseBytes(alice.accountId)).toBe(record.body.length);
      });

      it('never gives back or counts an expired response', async () => {
        const past = await saved(storedResponse(alice, { expiresAt: Date.now() - 1 }));
        expect(await store.findResponse(alice.accountId, past.id)).toBeUndefined();
        expect(await store.storedResponseBytes(alice.accountId)).toBe(0);
        expect(await store.deleteResponse(alice.accountId, past.id)).toBe(false);

        const soon = await saved(storedResponse(alice, { expiresAt: Date.now() + 50 }));
        expect(await store.findResponse(alice.accountId, soon.id)).toEqual(soon);
        await wait(100);
        expect(await store.findResponse(alice.accountId, soon.id)).toBeUndefined();
        expect(await store.storedResponseBytes(alice.accountId)).toBe(0);
        expect(await store.deleteResponse(alice.accountId, soon.id)).toBe(false);

        // Replaced by an expired record, a live one is gone too.
        const live = await saved(storedResponse(alice));
        await saved({ ...live, expiresAt: Date.now() - 1 });
        expect(await store.findResponse(alice.accountId, live.id)).toBeUndefined();
        expect(await store.storedResponseBytes(alice.accountId)).toBe(0);
      });

      it('stores up to the cap exactly and refuses one byte over, storing nothing; a delete frees room', async () => {
        const sixty = await saved(storedResponse(alice, { body: 'x'.repeat(60) }), 100);
        await saved(storedResponse(alice, { body: 'x'.repeat(40) }), 100);
        expect(await store.storedResponseBytes(alice.accountId)).toBe(100);
        const over = storedResponse(alice, { body: 'x' });
        const refused = await store.saveResponse(over, 100).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(ResponseStorageFullError);
        expect(refused).toMatchObject({ max: 100 });
        expect(await store.findResponse(alice.accountId, over.id)).toBeUndefined();
        expect(await store.storedResponseBytes(alice.accountId)).toBe(100);
        // The cap is per account.
        await expect(store.saveResponse(storedResponse(bob, { body: 'x'.repeat(100) }), 100)).resolves.toBeUndefined();

        expect(await store.deleteResponse(alice.accountId, sixty.id)).toBe(true);
        await expect(store.saveResponse(storedResponse(alice, { body: 'x'.repeat(60) }), 100)).resolves.toBeUndefined();
        await expect(store.saveResponse(over, 100)).rejects.toBeInstanceOf(ResponseStorageFullError);
        // One body alone larger than the cap.
        await expect(store.saveResponse(storedResponse(bob, { body: 'x'.repeat(101) }), 100)).rejects.toBeInstanceOf(ResponseStorageFullError);
      });

      it('frees the room of a response once it has expired', async () => {
        await saved(storedResponse(alice, { body: 'x'.repeat(100), expiresAt: Date.now() + 50 }), 100);
        await expect(store.saveResponse(storedResponse(alice, { body: 'x' }), 100)).rejects.toBeInstanceOf(ResponseStorageFullError);
        await wait(100);
        expect(await store.storedResponseBytes(alice.accountId)).toBe(0);
        await saved(storedResponse(alice, { body: 'x'.repeat(100) }), 100);
        expect(await store.storedResponseBytes(alice.accountId)).toBe(100);
      });

      it('counts a replaced response once, and keeps the old one when its replacement is refused', async () => {
        const record = await saved(storedResponse(alice, { body: 'x'.repeat(80) }), 100);
        await saved({ ...record, body: 'y'.repeat(90) }, 100);
        expect(await store.storedResponseBytes(alice.accountId)).toBe(90);
        const full = await saved({ ...record, body: 'z'.repeat(100) }, 100);
        expect(await store.storedResponseBytes(alice.accountId)).toBe(100);
        await expect(store.saveResponse({ ...record, body: 'w'.repeat(101) }, 100)).rejects.toBeInstanceOf(ResponseStorageFullError);
        await expect(store.saveResponse(storedResponse(alice, { body: 'x' }), 100)).rejects.toBeInstanceOf(ResponseStorageFullError);
        expect(await store.findResponse(alice.accountId, record.id)).toEqual(full);
        expect(await store.storedResponseBytes(alice.accountId)).toBe(100);
      });

      it('counts a body by its UTF-8 bytes', async () => {
        const body = '{"text":"č😀"}'; // č is 2 bytes, 😀 4: 17 bytes in 14 UTF-16 units
        expect(body).toHaveLength(14);
        await saved(storedResponse(alice, { body }), 17);
        expect(await store.storedResponseBytes(alice.accountId)).toBe(17);
        await expect(store.saveResponse(storedResponse(bob, { body }), 16)).rejects.toBeInstanceOf(ResponseStorageFullError);
      });

      it('never passes the cap when many saves race, and counts racing replacements of one id once', async () => {
        const results = await Promise.allSettled(Array.from({ length: 50 }, () => store.saveResponse(storedResponse(alice, { body: 'x'.repeat(100) }), 1_000)));
        expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(10);
        for (const result of results) if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(ResponseStorageFullError);
        expect(await store.storedResponseBytes(alice.accountId)).toBe(1_000);

        const record = storedResponse(bob);
        const bodies = Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(600, '.'));
        await Promise.all(bodies.map((body) => store.saveResponse({ ...record, body }, 1_000)));
        expect(await store.storedResponseBytes(bob.accountId)).toBe(600);
        expect(bodies).toContain((await store.findResponse(bob.accountId, record.id))?.body);
      });

      it('gives back a 1 MiB body and any Unicode exactly', async () => {
        const text = 'Munja ⚡ — čćđšž ÄÖÜß 日本語 한국어 עברית 😀👩‍👩‍👧 "quoted" \\ \n\t';
        const body = JSON.stringify({ output: text.repeat(Math.ceil(MiB / Buffer.byteLength(text))) });
        expect(Buffer.byteLength(body)).toBeGreaterThan(MiB);
        const large = await saved(storedResponse(alice, { body, previousResponseId: 'resp_⚡' }), 2 * MiB);
        expect(await store.findResponse(alice.accountId, large.id)).toEqual(large);
        expect(await store.storedResponseBytes(alice.accountId)).toBe(Buffer.byteLength(body));
      });
    });

    describe('admin keys, changes and rotation', () => {
      it('keeps the admin scope of a key', async () => {
        const account = await store.createAccount('root@example.com');
        const input = newKey(account.id, { admin: true });
        const key = await store.createKey(input);
        expect(key.admin).toBe(true);
        expect((await store.findKeyByDigest(input.digest))?.key.admin).toBe(true);
        expect((await store.findKeyById(key.id))?.admin).toBe(true);
        expect((await store.createKey(newKey(account.id))).admin).toBe(false);
      });

      it('changes the fields given and leaves the others; a revoked key is not changed', async () => {
        const account = await store.createAccount('alice@example.com');
        const input = newKey(account.id, { models: ['a'], limits: { rpm: 5, tpm: 50 } });
        const key = await store.createKey(input);
        const renamed = await store.updateKey(key.id, { name: 'renamed', rpm: null });
        expect(renamed).toEqual({ ...key, name: 'renamed', limits: { rpm: null, tpm: 50 } });
        const opened = await store.updateKey(key.id, { models: null, tpm: 7 });
        expect(opened).toEqual({ ...key, name: 'renamed', models: null, limits: { rpm: null, tpm: 7 } });
        expect((await store.findKeyByDigest(input.digest))?.key).toEqual(opened);
        await store.revokeKey(key.id);
        expect((await store.updateKey(key.id, { name: 'again' }))?.name).toBe('renamed');
        expect(await store.updateKey('key_missing', { name: 'x' })).toBeUndefined();
      });

      it('rotates a secret: the new one finds the key, the old one only within its grace', async () => {
        const account = await store.createAccount('alice@example.com');
        const input = newKey(account.id, { limits: { rpm: 9, tpm: null } });
        const key = await store.createKey(input);
        const next = { digest: randomBytes(32).toString('hex'), prefix: 'sk_munja_new1', lastFour: 'new4' };
        const graceUntil = Date.now() + 60_000;
        const rotated = await store.rotateKey(key.id, next, graceUntil);
        expect(rotated).toEqual({ ...key, prefix: 'sk_munja_new1', lastFour: 'new4' });
        expect(await store.findKeyByDigest(next.digest)).toEqual({ key: rotated, account });
        expect(await store.findKeyByDigest(input.digest)).toEqual({ key: rotated, account, secretExpiresAt: graceUntil });

        // A second rotation ends the first secret's grace at once; a grace already over gives none.
        const third = { digest: randomBytes(32).toString('hex'), prefix: 'sk_munja_new2', lastFour: 'new8' };
        await store.rotateKey(key.id, third, Date.now() - 1);
        expect(await store.findKeyByDigest(input.digest)).toBeUndefined();
        expect(await store.findKeyByDigest(next.digest)).toBeUndefined();
        expect((await store.findKeyByDigest(third.digest))?.key.id).toBe(key.id);
      });

      it('ends the old secret when its grace is over', async () => {
        const account = await store.createAccount('alice@example.com');
        const input = newKey(account.id);
        const key = await store.createKey(input);
        await store.rotateKey(key.id, { digest: randomBytes(32).toString('hex'), prefix: 'sk_munja_new1', lastFour: 'new4' }, Date.now() + 200);
        await expect.poll(() => store.findKeyByDigest(input.digest), { timeout: 5_000 }).toBeUndefined();
      });

      it('does not rotate a revoked or unknown key', async () => {
        const account = await store.createAccount('alice@example.com');
        const key = await store.createKey(newKey(account.id));
        await store.revokeKey(key.id);
        const next = { digest: randomBytes(32).toString('hex'), prefix: 'sk_munja_new1', lastFour: 'new4' };
        expect(await store.rotateKey(key.id, next, Date.now() + 60_000)).toBeUndefined();
        expect(await store.rotateKey('key_missing', next, Date.now() + 60_000)).toBeUndefined();
        expect(await store.findKeyByDigest(next.digest)).toBeUndefined();
      });
    });

    describe('expiry, budget, priority and cache setting', () => {
      it('keeps them on a new key, and has null for a key without them', async () => {
        const account = await store.createAccount('alice@example.com');
        const fields = { expiresAt: Date.now() + 60_000, budget: { limit: 5_000_000, period: 'month' as const }, priority: 'high' as const, cache: 'off' as const };
        const input = newKey(account.id, fields);
        const key = await store.createKey(input);
        expect(key).toMatchObject(fields);
        expect((await store.findKeyByDigest(input.digest))?.key).toEqual(key);
        expect(await store.findKeyById(key.id)).toEqual(key);
        expect((await store.listKeys(account.id))[0]).toEqual(key);
        const plain = await store.createKey(newKey(account.id));
        expect(plain).toMatchObject({ expiresAt: null, budget: null, priority: null, cache: null });
      });

      it('changes, keeps and clears them on a key', async () => {
        const account = await store.createAccount('alice@example.com');
        const input = newKey(account.id, { models: ['a'] });
        const key = await store.createKey(input);
        const set = await store.updateKey(key.id, { expiresAt: 1_900_000_000_000, budget: { limit: 1, period: 'day' }, priority: 'low', cache: 'on' });
        expect(set).toEqual({ ...key, expiresAt: 1_900_000_000_000, budget: { limit: 1, period: 'day' }, priority: 'low', cache: 'on' });
        const renamed = await store.updateKey(key.id, { name: 'renamed' });
        expect(renamed).toEqual({ ...set, name: 'renamed' });
        const cleared = await store.updateKey(key.id, { expiresAt: null, budget: null, priority: null, cache: null });
        expect(cleared).toEqual({ ...key, name: 'renamed' });
        expect((await store.findKeyByDigest(input.digest))?.key).toEqual(cleared);
      });

      it("sets and clears an account's budget and priority, leaving what is not named", async () => {
        const account = await store.createAccount('alice@example.com');
        expect(account).toMatchObject({ budget: null, priority: null });
        const input = newKey(account.id);
        await store.createKey(input);
        const budgeted = await store.updateAccount(account.id, { budget: { limit: 2_500_000, period: 'total' } });
        expect(budgeted).toEqual({ ...account, budget: { limit: 2_500_000, period: 'total' } });
        const prioritised = await store.updateAccount(account.id, { priority: 'low' });
        expect(prioritised).toEqual({ ...account, budget: { limit: 2_500_000, period: 'total' }, priority: 'low' });
        expect((await store.findKeyByDigest(input.digest))?.account).toEqual(prioritised);
        expect(await store.findAccountByEmail('alice@example.com')).toEqual(prioritised);
        expect((await store.listAccountPage(0, 10)).accounts[0]).toEqual(prioritised);
        // The other setters keep them.
        expect(await store.setAccountStatus('alice@example.com', 'suspended')).toEqual({ ...prioritised, status: 'suspended' });
        const cleared = await store.updateAccount(account.id, { budget: null, priority: null });
        expect(cleared).toEqual({ ...account, status: 'suspended' });
        expect(await store.updateAccount('acct_missing', { priority: 'high' })).toBeUndefined();
      });

      it("sets and clears the rate limits an account's keys share, one at a time", async () => {
        const account = await store.createAccount('alice@example.com');
        expect(account.limits).toEqual({ rpm: null, tpm: null });
        const input = newKey(account.id);
        await store.createKey(input);
        const limited = await store.updateAccount(account.id, { rpm: 30, tpm: 9_000 });
        expect(limited).toEqual({ ...account, limits: { rpm: 30, tpm: 9_000 } });
        expect((await store.findKeyByDigest(input.digest))?.account).toEqual(limited);
        expect(await store.updateAccount(account.id, { priority: 'high' })).toEqual({ ...limited, priority: 'high' });
        expect(await store.updateAccount(account.id, { tpm: null })).toEqual({ ...account, priority: 'high', limits: { rpm: 30, tpm: null } });
        // The key's own limits are apart from its account's.
        expect((await store.findKeyByDigest(input.digest))?.key.limits).toEqual(input.limits);
      });
    });

    describe('audit log', () => {
      const entry = (overrides: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
        at: 1_700_000_000_000, actor: 'cli', address: null, action: 'account.created', target: 'acct_1', fields: { email: 'a@example.com' }, ...overrides,
      });

      it('appends entries and reads them newest first, a page at a time', async () => {
        const first = await store.appendAudit(entry());
        const second = await store.appendAudit(entry({ actor: 'acct_admin', address: '127.0.0.1', action: 'key.created', target: 'key_1', fields: { name: 'ci' } }));
        const third = await store.appendAudit(entry({ action: 'account.suspended', fields: { status: 'suspended' } }));
        expect(second).toEqual({ ...entry({ actor: 'acct_admin', address: '127.0.0.1', action: 'key.created', target: 'key_1', fields: { name: 'ci' } }), id: second.id });
        expect(await store.listAudit({ limit: 10 })).toEqual([third, second, first]);
        const page = await store.listAudit({ limit: 2 });
        expect(page).toEqual([third, second]);
        expect(await store.listAudit({ limit: 2, before: page[1]!.id })).toEqual([first]);
        expect(await store.listAudit({ limit: 2, before: 'not-a-cursor' })).toEqual([]);
      });

      it('filters by actor, target, action and time', async () => {
        const a = await store.appendAudit(entry({ at: 1_000 }));
        const b = await store.appendAudit(entry({ at: 2_000, actor: 'acct_x', target: 'key_9', action: 'key.revoked' }));
        const c = await store.appendAudit(entry({ at: 3_000, action: 'account.resumed' }));
        expect(await store.listAudit({ limit: 10, actor: 'acct_x' })).toEqual([b]);
        expect(await store.listAudit({ limit: 10, target: 'acct_1' })).toEqual([c, a]);
        expect(await store.listAudit({ limit: 10, action: 'account.resumed' })).toEqual([c]);
        expect(await store.listAudit({ limit: 10, from: 2_000, to: 3_000 })).toEqual([b]);
        expect(await store.listAudit({ limit: 1, target: 'acct_1', before: c.id })).toEqual([a]);
      });
    });

    describe('usage', () => {
      const usage = (keyId: string, day: string, model: string, costMicros = 1) => ({
        keyId, day, model, requests: 1, promptTokens: 1, completionTokens: 1, costMicros,
      });

      it('adds deltas up per key, day and model, with their cost', async () => {
        const account = await store.createAccount('alice@example.com');
        const key = await store.createKey(newKey(account.id));
        const delta = { keyId: key.id, day: '2025-01-01', model: 'gpt-x', requests: 1, promptTokens: 10, completionTokens: 20, costMicros: 150 };
        await store.addUsage([delta, delta]);
        await store.addUsage([{ ...delta, requests: 3, promptTokens: 1, completionTokens: 2, costMicros: 7 }, { ...delta, model: 'other:v1' }]);
        expect(await store.usageByDay([key.id], '2025-01-01', '2025-01-01')).toEqual([
          { keyId: key.id, day: '2025-01-01', model: 'gpt-x', requests: 5, promptTokens: 21, completionTokens: 42, costMicros: 307 },
          { keyId: key.id, day: '2025-01-01', model: 'other:v1', requests: 1, promptTokens: 10, completionTokens: 20, costMicros: 150 },
        ]);
      });

      it('filters by key and by inclusive day range, ordered by day', async () => {
        const account = await store.createAccount('alice@example.com');
        const one = await store.createKey(newKey(account.id));
        const two = await store.createKey(newKey(account.id));
        await store.addUsage([
          usage(one.id, '2025-01-03', 'm'), usage(one.id, '2025-01-01', 'm'), usage(one.id, '2025-01-02', 'm'),
          usage(one.id, '2025-01-04', 'm'), usage(two.id, '2025-01-02', 'm'),
        ]);
        const rows = await store.usageByDay([one.id], '2025-01-02', '2025-01-03');
        expect(rows.map((r) => r.day)).toEqual(['2025-01-02', '2025-01-03']);
        expect(await store.usageByDay([one.id, two.id], '2025-01-02', '2025-01-02')).toHaveLength(2);
        expect(await store.usageByDay([], '2000-01-01', '2999-01-01')).toEqual([]);
      });

      it('filters by model, and reads every key when given none, ordered by day, key and model', async () => {
        const account = await store.createAccount('alice@example.com');
        const [a, b] = [await store.createKey(newKey(account.id)), await store.createKey(newKey(account.id))].sort((x, y) => (x.id < y.id ? -1 : 1));
        await store.addUsage([
          usage(b!.id, '2025-02-01', 'beta', 2), usage(a!.id, '2025-02-01', 'beta', 3), usage(a!.id, '2025-02-01', 'alpha', 4),
          usage(a!.id, '2025-02-02', 'alpha', 5), usage(b!.id, '2025-02-03', 'alpha', 6),
        ]);
        const of = (rows: readonly { keyId: string; day: string; model: string; costMicros: number }[]) =>
          rows.map((row) => [row.day, row.keyId === a!.id ? 'a' : 'b', row.model, row.costMicros]);
        expect(of(await store.usageByDay(null, '2025-02-01', '2025-02-02'))).toEqual([
          ['2025-02-01', 'a', 'alpha', 4], ['2025-02-01', 'a', 'beta', 3], ['2025-02-01', 'b', 'beta', 2], ['2025-02-02', 'a', 'alpha', 5],
        ]);
        expect(of(await store.usageByDay(null, '2025-02-01', '2025-02-03', 'alpha'))).toEqual([
          ['2025-02-01', 'a', 'alpha', 4], ['2025-02-02', 'a', 'alpha', 5], ['2025-02-03', 'b', 'alpha', 6],
        ]);
        expect(of(await store.usageByDay([b!.id], '2025-02-01', '2025-02-03', 'beta'))).toEqual([['2025-02-01', 'b', 'beta', 2]]);
        expect(await store.usageByDay([a!.id, b!.id], '2025-02-01', '2025-02-03', 'gamma')).toEqual([]);
        expect(await store.usageByDay(null, '2024-01-01', '2024-12-31')).toEqual([]);
      });
    });
  });
}
