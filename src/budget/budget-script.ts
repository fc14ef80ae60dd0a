// budget.lua as an ioredis command (EVALSHA, reloaded after NOSCRIPT), its keys and arguments
// built and its reply parsed here.
import { readFileSync } from 'node:fs';
import type { RedisClient } from '../store/redis-connection.ts';
import type { BudgetOp, BudgetResult, BudgetScopes, ScopeState } from './budget-book.ts';

const LUA = readFileSync(new URL('./budget.lua', import.meta.url), 'utf8');
const COMMAND = 'munjaBudgetV1';

type ScriptCommand = (...args: Array<string | number>) => Promise<unknown>;

/** Both scopes live under `{accountId}`, so that one script touches them in one Redis Cluster slot. */
export function budgetKeys(accountId: string, keyId: string): [string, string, string, string] {
  const base = `munja:budget:v1:{${accountId}}`;
  return [`${base}:key:${keyId}`, `${base}:key:${keyId}:res`, `${base}:account`, `${base}:account:res`];
}

export class BudgetScript {
  readonly #run: ScriptCommand;

  constructor(client: RedisClient) {
    if (!(COMMAND in client)) client.defineCommand(COMMAND, { lua: LUA, numberOfKeys: 4 });
    const command = (client as unknown as Record<string, ScriptCommand>)[COMMAND]!;
    this.#run = (...args) => command.apply(client, args);
  }

  /** `now` is for tests only (a driven clock); production leaves the time to Redis. */
  async apply(accountId: string, keyId: string, scopes: BudgetScopes, op: BudgetOp, now?: number): Promise<BudgetResult> {
    const [id, amount, ttl] = op.kind === 'reserve' ? [op.id, op.amount, op.ttlMs]
      : op.kind === 'settle' ? [op.id, op.cost, 0]
      : op.kind === 'renew' ? [op.ids.join(','), 0, op.ttlMs]
      : ['', 0, 0];
    const reply = await this.#run(
      ...budgetKeys(accountId, keyId),
      now === undefined ? '' : now, op.kind,
      scopes.key?.limit ?? 0, scopes.key?.period ?? '', scopes.account?.limit ?? 0, scopes.account?.period ?? '',
      id, amount, ttl,
    ) as Array<number | string>;
    const state = (at: number): ScopeState => ({ spent: Number(reply[at]), reserved: Number(reply[at + 1]), endsAt: reply[at + 2] === '' ? null : Number(reply[at + 2]) });
    return {
      allowed: reply[0] === 1,
      limitedBy: reply[1] === 1 ? 'key' : reply[1] === 2 ? 'account' : null,
      key: state(2),
      account: state(5),
      now: Number(reply[8]),
    };
  }
}
