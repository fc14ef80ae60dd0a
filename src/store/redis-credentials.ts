// The dashboard's part of the Redis store: password hashes, sessions (which expire by key TTL),
// an index of each account's sessions (to end them all), sign-in attempt windows (one counter per name, expiring with its window, shared by every
// instance) and single-use tokens (GETDEL: redeemed at most once, whichever instance asks).
import type { RedisClient } from './redis-connection.ts';
import { storeKeys } from './redis-keys.ts';
import { COUNT_ATTEMPT, EXTEND_SESSION, FIND_ATTEMPTS, INDEX_SESSION, SET_PASSWORD } from './redis-scripts.ts';
import type { AttemptWindow, OneTimeToken, Session } from './store.ts';

// An account's session index is pruned of sessions that have ended once it names more than this.
const SESSION_INDEX_PRUNE_AT = 32;

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
    await this.#indexSession(session.accountId, session.digest, session.expiresAt);
  }

  async findSession(digest: string): Promise<Session | undefined> {
    const fields = await this.#client.hgetall(storeKeys.session(digest));
    const expiresAt = Number(fields['expiresAt']);
    if (fields['accountId'] === undefined || !(expiresAt > Date.now())) return undefined;
    return Object.freeze({ digest, accountId: fields['accountId'], createdAt: Number(fields['createdAt']), expiresAt });
  }

  async extendSession(digest: string, expiresAt: number): Promise<void> {
    const accountId = await EXTEND_SESSION.run(this.#client, [storeKeys.session(digest)], [expiresAt]);
    if (typeof accountId === 'string') await this.#indexSession(accountId, digest, expiresAt);
  }

  async deleteSession(digest: string): Promise<void> {
    await this.#client.del(storeKeys.session(digest));
  }

  async deleteAccountSessions(accountId: string, keepDigest?: string): Promise<number> {
    const index = storeKeys.accountSessions(accountId);
    const digests = (await this.#client.smembers(index)).filter((digest) => digest !== keepDigest);
    if (digests.length === 0) return 0;
    // One DEL per session: the sessions live in other Cluster slots than the index.
    const deleted = await Promise.all(digests.map((digest) => this.#client.del(storeKeys.session(digest))));
    await this.#client.srem(index, ...digests);
    return deleted.reduce((sum, n) => sum + n, 0);
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

  async findToken(digest: string, kind: OneTimeToken['kind']): Promise<OneTimeToken | undefined> {
    const key = storeKeys.token(kind, digest);
    const [payload, expiresAt] = await Promise.all([this.#client.get(key), this.#client.pexpiretime(key)]);
    if (payload === null || !(expiresAt > Date.now())) return undefined;
    return Object.freeze({ digest, kind, payload, expiresAt });
  }

  async takeToken(digest: string, kind: OneTimeToken['kind']): Promise<string | undefined> {
    return (await this.#client.getdel(storeKeys.token(kind, digest))) ?? undefined;
  }

  async #indexSession(accountId: string, digest: string, expiresAt: number): Promise<void> {
    const index = storeKeys.accountSessions(accountId);
    const size = Number(await INDEX_SESSION.run(this.#client, [index], [digest, expiresAt]));
    if (size <= SESSION_INDEX_PRUNE_AT) return;
    const digests = await this.#client.smembers(index);
    const alive = await Promise.all(digests.map((name) => this.#client.exists(storeKeys.session(name))));
    const ended = digests.filter((_, i) => alive[i] === 0);
    if (ended.length > 0) await this.#client.srem(index, ...ended);
  }
}

/** {count, ms left} → the window; the time left is turned into a local time. */
function toWindow(reply: unknown): AttemptWindow | undefined {
  if (!Array.isArray(reply)) return undefined;
  const [count, ttlMs] = reply.map(Number);
  return Object.freeze({ count: count ?? 0, resetAt: Date.now() + Math.max(ttlMs ?? 0, 0) });
}
