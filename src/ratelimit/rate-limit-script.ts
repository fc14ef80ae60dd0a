// token-bucket.lua as an ioredis command: sent by EVALSHA (ioredis loads it on each connection's
// first use and again after NOSCRIPT, e.g. after SCRIPT FLUSH, a restart or a Cluster failover),
// with its keys and arguments built and its reply parsed here.
//
// Operations are batched: those asked for during one turn of the event loop go out at its end as
// one call (one per account on a Redis Cluster, whose calls must stay in one slot). Under load a
// call then carries the decisions and settlements of many requests, and the per-call cost (the
// command, its deadline timer, the reply's parsing, Redis's own dispatch) is paid once for all.
import { readFileSync } from 'node:fs';
import type { RedisClient } from '../store/redis-connection.ts';
import type { LimitPolicy } from './limit-policy.ts';
import { LIMIT_NAMES, type RawDecision, type ScopeIds } from './limiter-model.ts';

const LUA = readFileSync(new URL('./token-bucket.lua', import.meta.url), 'utf8');
const COMMAND = 'munjaRateLimitV2';
/** Operations per call at most: bounds how long one call holds Redis (a few µs each). */
export const MAX_BATCH = 64;

type Arg = string | number;
type ScriptCommand = (...args: Arg[]) => Promise<unknown>;
type Op = 'acquire' | 'settle' | 'renew';

interface Pending {
  readonly keys: readonly Arg[];
  readonly args: readonly Arg[];
  readonly resolve: (reply: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Every key of a request lives under `{accountId}`: the account's buckets must share a Cluster slot
 * with each of its keys' buckets for one script to touch them all (and key ids never change account).
 */
export function limiterKeys(ids: ScopeIds): [string, string, string] {
  const base = `munja:rl:v1:{${ids.accountId}}`;
  return [`${base}:key:${ids.keyId}`, `${base}:key:${ids.keyId}:slots`, `${base}:account`];
}

export class RateLimitScript {
  readonly #run: ScriptCommand;
  /** Batches by account (Redis Cluster) or all in one. */
  readonly #perAccount: boolean;
  readonly #batches = new Map<string, Pending[]>();
  #flushScheduled = false;

  constructor(client: RedisClient) {
    if (!(COMMAND in client)) client.defineCommand(COMMAND, { lua: LUA });
    const command = (client as unknown as Record<string, ScriptCommand>)[COMMAND];
    this.#run = (...args) => command!.apply(client, args);
    this.#perAccount = client.isCluster;
  }

  /** `now` is for tests only (a driven clock); production leaves the time to Redis. */
  async acquire(ids: ScopeIds, policy: LimitPolicy, tokens: number, slotId: string, leaseMs: number, now?: number): Promise<RawDecision> {
    return parseAcquireReply(await this.#call('acquire', ids, policy, tokens, slotId, leaseMs, now));
  }

  /** `refund` = reserved − used tokens. Resolves with the time Redis settled at. */
  async settle(ids: ScopeIds, policy: LimitPolicy, refund: number, slotId: string, now?: number): Promise<number> {
    return Number(await this.#call('settle', ids, policy, refund, slotId, 0, now));
  }

  /** Resolves with the time Redis renewed at. */
  async renew(ids: ScopeIds, policy: LimitPolicy, slotId: string, leaseMs: number, now?: number): Promise<number> {
    return Number(await this.#call('renew', ids, policy, 0, slotId, leaseMs, now));
  }

  #call(op: Op, ids: ScopeIds, policy: LimitPolicy, tokens: number, slotId: string, leaseMs: number, now: number | undefined): Promise<unknown> {
    const { key, account, concurrency } = policy;
    const args = [op, now === undefined ? '' : String(now), key.rpm, key.tpm, concurrency, account?.rpm ?? 0, account?.tpm ?? 0, tokens, slotId, leaseMs];
    const group = this.#perAccount ? ids.accountId : '';
    return new Promise((resolve, reject) => {
      let batch = this.#batches.get(group);
      if (batch === undefined) this.#batches.set(group, (batch = []));
      batch.push({ keys: limiterKeys(ids), args, resolve, reject });
      if (batch.length >= MAX_BATCH) {
        this.#batches.delete(group);
        this.#send(batch);
      } else if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(this.#flush);
      }
    });
  }

  readonly #flush = (): void => {
    this.#flushScheduled = false;
    for (const batch of this.#batches.values()) this.#send(batch);
    this.#batches.clear();
  };

  #send(batch: readonly Pending[]): void {
    const keys = batch.flatMap((pending) => pending.keys);
    const args = batch.flatMap((pending) => pending.args);
    this.#run(keys.length, ...keys, ...args).then((replies) => {
      if (!Array.isArray(replies) || replies.length !== batch.length) {
        const error = new Error(`${COMMAND}: unexpected reply`);
        for (const pending of batch) pending.reject(error);
        return;
      }
      for (let index = 0; index < batch.length; index++) {
        const reply: unknown = replies[index];
        if (reply instanceof Error) batch[index]!.reject(reply);
        else batch[index]!.resolve(reply);
      }
    }, (error: unknown) => {
      for (const pending of batch) pending.reject(error);
    });
  }
}

export function parseAcquireReply(reply: unknown): RawDecision {
  if (!Array.isArray(reply) || reply.length !== 9) throw new Error(`${COMMAND}: unexpected reply`);
  const [allowed, retry, limitedBy, keyRequests, keyTokens, accountRequests, accountTokens, inFlight, now] = reply as [number, string, number, string, string, string, string, number, string];
  return {
    allowed: allowed === 1,
    retryAfterMs: retry === 'inf' ? Infinity : Number(retry),
    limitedBy: LIMIT_NAMES[limitedBy - 1] ?? null,
    key: { requests: Number(keyRequests), tokens: Number(keyTokens) },
    account: accountRequests === '' ? null : { requests: Number(accountRequests), tokens: Number(accountTokens) },
    inFlight,
    now: Number(now),
  };
}
