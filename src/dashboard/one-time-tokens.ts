// Single-use secrets sent to people: sign-up verification links and invites. The token is 256
// random bits; the store keeps only its SHA-256 digest (a leaked store holds no usable link) and
// redeeming deletes it in the same step, so a token works once, on whichever instance.
import { createHash, randomBytes } from 'node:crypto';
import type { OneTimeToken, Store } from '../store/store.ts';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export async function issueToken(store: Store, kind: OneTimeToken['kind'], payload: unknown, ttlMs: number): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await store.saveToken({ digest: digestOf(token), kind, payload: JSON.stringify(payload), expiresAt: Date.now() + ttlMs });
  return token;
}

/** The payload, once; undefined for a token that is malformed, unknown, used or expired. */
export async function redeemToken(store: Store, kind: OneTimeToken['kind'], token: string): Promise<unknown> {
  if (!TOKEN.test(token)) return undefined;
  const payload = await store.takeToken(digestOf(token), kind);
  return payload === undefined ? undefined : JSON.parse(payload);
}

function digestOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
