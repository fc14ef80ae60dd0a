// The dashboard's part of the Redis store: password hashes, sessions (which expire by key TTL),
// sign-in attempt windows (one counter per name, expiring with its window, shared by every
// instance) and single-use tokens (GETDEL: redeemed at most once, whichever instance asks).
import type { RedisClient } from './redis-connection.ts';
import { storeKeys } from './redis-keys.ts';
import { COUNT_ATTEMPT, EXTEND_SESSION, FIND_ATTEMPTS, SET_PASSWORD } from './redis-scripts.ts';
import type { AttemptWindow, OneTimeToken, Session } from './store.ts';

export class RedisCredentials {
  readonly #client: RedisClient;

  constructor(client: RedisClient) {
    this.#client = client;
  }

  async findPasswordHash(accountId: string): Promise<string | undefined> {
    return (await this.#client.get(storeKeys.password(accountId))) ?? undefined;
  }

  async setPasswordHash(accountId: string, passwordHash: string): Promise<boolean> {
    const keys = [storeKeys.account(accountId), storeKeys.password(accountId)];
    return (await SET_PASSWORD.run(this.#client, keys, [passwordHash])) === 1;
  }

  async createSession(session: Session): Promise<void> {
    const key = storeKeys.session(session.digest);
    await this.#client.multi()
      .hset(key, 'accountId', session.accountId, 'createdAt', String(session.createdAt), 'expiresAt', String(session.expiresAt))
      .pexpireat(key, session.expiresAt)
      .exec();
  }

  async findSession(digest: string): Promise<Session | undefined> {
    const fields = await this.#client.hgetall(storeKeys.session(digest));
    const expiresAt = Number(fields['expiresAt']);
    if (fields['accountId'] === undefined || !(expiresAt > Date.now())) return undefined;
    return Object.freeze({ digest, accountId: fields['accountId'], createdAt: Number(fields['createdAt']), expiresAt });
  }

  async extendSession(digest: string, expiresAt: number): Promise<void> {
    await EXTEND_SESSION.run(this.#client, [storeKeys.session(digest)], [expiresAt]);
  }

  async deleteSession(digest: string): Promise<void> {
    await this.#client.del(storeKeys.session(digest));
  }

  async countAttempt(name: string, windowMs: number): Promise<AttemptWindow> {
    return toWindow(await COUNT_ATTEMPT.run(this.#client, [storeKeys.attempts(name)], [windowMs]))!;
  }

  async findAttempts(name: string): Promise<AttemptWindow | undefined> {
    return toWindow(await FIND_ATTEMPTS.run(this.#client, [storeKeys.attempts(name)], []));
  }

  async clearAttempts(name: string): Promise<void> {
    await this.#client.del(storeKeys.attempts(name));
  }

  async saveToken(token: OneTimeToken): Promise<void> {
    await this.#client.set(storeKeys.token(token.kind, token.digest), token.payload, 'PXAT', token.expiresAt);
  }

  async takeToken(digest: string, kind: OneTimeToken['kind']): Promise<string | undefined> {
    return (await this.#client.getdel(storeKeys.token(kind, digest))) ?? undefined;
  }
}

/** {count, ms left} → the window; the time left is turned into a local time. */
function toWindow(reply: unknown): AttemptWindow | undefined {
  if (!Array.isArray(reply)) return undefined;
  const [count, ttlMs] = reply.map(Number);
  return Object.freeze({ count: count ?? 0, resetAt: Date.now() + Math.max(ttlMs ?? 0, 0) });
}
