// Single-use secrets sent to people: sign-up verification links and invites. The token is 256
// random bits; the store keeps only its SHA-256 digest (a leaked store holds no usable link).
// A token is looked at first (findIssuedToken) and used only once the work it pays for has
// succeeded (useToken, which deletes it in the same step, so it works once, on whichever instance).
import { createHash, randomBytes } from 'node:crypto';
import type { OneTimeToken, Store } from '../store/store.ts';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export async function issueToken(store: Store, kind: OneTimeToken['kind'], payload: unknown, ttlMs: number): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await store.saveToken({ digest: digestOf(token), kind, payload: JSON.stringify(payload), expiresAt: Date.now() + ttlMs });
  return token;
}

/** The token's record, still unused; undefined for a token that is malformed, unknown, used or expired. */
export async function findIssuedToken(store: Store, kind: OneTimeToken['kind'], token: string): Promise<OneTimeToken | undefined> {
  return TOKEN.test(token) ? store.findToken(digestOf(token), kind) : undefined;
}

/** Uses up a token findIssuedToken found: false when it was used (or expired) in the meantime. */
export async function useToken(store: Store, found: OneTimeToken): Promise<boolean> {
  return (await store.takeToken(found.digest, found.kind)) !== undefined;
}

function digestOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
