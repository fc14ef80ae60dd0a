// Each way a key can be wrong gets 401 invalid_api_key with a message naming what to fix; unknown
// and revoked keys get the same message, and no message quotes the key.
import { describe, expect, it } from 'vitest';
import { API_KEY_PREFIX, digestApiKey, generateApiKey } from '../../../src/auth/api-key.ts';
import { Authenticator } from '../../../src/auth/authenticator.ts';
import type { ApiError } from '../../../src/errors/api-error.ts';
import type { KeyWithAccount, Store } from '../../../src/store/store.ts';

const SECRET = Buffer.alloc(32, 3);
const known = generateApiKey();
const revoked = generateApiKey();

function record(keyId: string, revokedAt: number | null): KeyWithAccount {
  return {
    key: {
      id: keyId, accountId: 'acct_a', name: '', prefix: 'sk_munja_abcd', lastFour: 'wxyz', models: null,
      limits: { rpm: null, tpm: null }, createdAt: 0, lastUsedAt: null, revokedAt, admin: false,
    },
    account: { id: 'acct_a', email: 'a@example.com', status: 'active', isAdmin: false, createdAt: 0 },
  };
}

const records = new Map([
  [digestApiKey(known, SECRET), record('key_known', null)],
  [digestApiKey(revoked, SECRET), record('key_revoked', 1)],
]);
const store = { findKeyByDigest: async (digest: string) => records.get(digest) } as Partial<Store> as Store;
const auth = new Authenticator({ store, secret: SECRET, defaultLimits: { rpm: 1, tpm: 1 }, cacheTtlMs: 1_000 });

async function refusal(authorization: string): Promise<ApiError> {
  const error = await auth.authenticate(authorization).then(() => undefined, (thrown: ApiError) => thrown);
  if (error === undefined) throw new Error(`${authorization} was accepted`);
  expect(error.status).toBe(401);
  expect(error.code).toBe('invalid_api_key');
  return error;
}

const withLast = (key: string, last: string) => key.slice(0, -1) + (key.at(-1) === last ? 'B' : last);

describe('key refusals', () => {
  it('accepts the known key', async () => {
    expect((await auth.authenticate(`Bearer ${known}`)).keyId).toBe('key_known');
  });

  it('no header: says which header to send and where keys come from', async () => {
    for (const header of ['', '   ']) {
      const { message } = await refusal(header);
      expect(message).toContain('Authorization: Bearer sk_munja_…');
      expect(message).toContain('munja keys create');
      expect(message).toContain('/dashboard');
    }
  });

  it('a header without Bearer: says the scheme is missing', async () => {
    for (const header of [known, `Basic ${Buffer.from('a:b').toString('base64')}`, `Token ${known}`, 'Bearer', `Bearer ${known} extra`]) {
      const { message } = await refusal(header);
      expect(message).toContain('the word Bearer, a space, then the key');
      expect(message).not.toContain(known.slice(API_KEY_PREFIX.length));
    }
  });

  it('not a Munja key: names the broken rule (prefix, length, alphabet, checksum) without quoting the key', async () => {
    const faults: Array<[string, string]> = [
      ['sk-proj-abcdefghijklmnopqrstuvwxyz0123456789', 'does not start with sk_munja_'],
      [`${known}Zz`, `has ${known.length + 2} characters where a key has ${known.length}`],
      [`${known.slice(0, -6)}ab-cde`, 'characters other than letters and digits'],
      [withLast(known, 'A'), 'checksum'],
    ];
    for (const [key, fault] of faults) {
      const { message } = await refusal(`Bearer ${key}`);
      expect(message).toContain('not a Munja API key');
      expect(message).toContain(fault);
      expect(message).not.toContain(key.slice(API_KEY_PREFIX.length, -4));
    }
  });

  it('unknown and revoked: one message for both', async () => {
    const unknown = await refusal(`Bearer ${generateApiKey()}`);
    const gone = await refusal(`Bearer ${revoked}`);
    expect(unknown.message).toContain('unknown, has been revoked or has expired');
    expect(gone.message).toBe(unknown.message);
  });
});
