// token-bucket.lua as an ioredis command: sent by EVALSHA (ioredis loads it on each connection's
// first use and again after NOSCRIPT, e.g. after SCRIPT FLUSH, a restart or a Cluster failover),
// with its keys and arguments built and its reply parsed here.
//
// Operations are batched: those asked for in one synchronous run of code (the limiter asks for a
// whole event-loop turn's at once) go out together, from a microtask, as one call (one per account on a Redis Cluster, whose calls must stay in one slot), so the per-call
// cost (the command, the reply's parsing, Redis's own dispatch) is paid once for all of them.
import { readFileSync } from 'node:fs';
import type { RedisClient } from '../store/redis-connection.ts';
import type { LimitPolicy } from './limit-policy.ts';
import { type Admission, LIMIT_NAMES, type ScopeIds, type SyncOp, type SyncResult } from './limiter-model.ts';

const LUA = readFileSync(new URL('./token-bucket.lua', import.meta.url), 'utf8');
const COMMAND = 'munjaRateLimitV3';
/** Operations per call at most: bounds how long one call holds Redis. */
export const MAX_BATCH = 64;

type Arg = string | number;
type ScriptCommand = (...args: Arg[]) => Promise<unknown>;

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
  const base = `munja:rl:v3:{${ids.accountId}}`;
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
  async sync(ids: ScopeIds, policy: LimitPolicy, op: SyncOp, now?: number): Promise<SyncResult> {
    const { key, account, concurrency } = policy;
    const args = [
      now === undefined ? '' : String(now), key.rpm, key.tpm, concurrency, account?.rpm ?? 0, account?.tpm ?? 0,
      op.instance, op.slotTtlMs, op.tokens.join(','), op.refundRequests, op.refundTokens,
      op.want.requests, op.want.tokens, op.want.slots, `${op.fleet},${op.held},${op.renew ? 1 : 0}`,
    ];
    return parseSyncReply(await this.#call(ids, args));
  }

  #call(ids: ScopeIds, args: readonly Arg[]): Promise<unknown> {
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
        queueMicrotask(this.#flush);
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

type Reply = [number[], string[], number[], string, string, string, string, number, number, string, number, number, string];

export function parseSyncReply(reply: unknown): SyncResult {
  if (!Array.isArray(reply) || reply.length !== 13) throw new Error(`${COMMAND}: unexpected reply`);
  const [allowed, retries, limited, keyR, keyT, accountR, accountT, inFlight, grantedR, grantedT, grantedC, allowance, now] = reply as Reply;
  const admissions: Admission[] = allowed.map((flag, index) => ({
    allowed: flag === 1,
    retryAfterMs: retries[index] === 'inf' ? Infinity : Number(retries[index]),
    limitedBy: LIMIT_NAMES[(limited[index] ?? 0) - 1] ?? null,
  }));
  return {
    admissions,
    key: { requests: Number(keyR), tokens: Number(keyT) },
    account: accountR === '' ? null : { requests: Number(accountR), tokens: Number(accountT) },
    inFlight,
    granted: { requests: grantedR, tokens: Number(grantedT), slots: grantedC },
    allowance,
    now: Number(now),
  };
}
