// The fleet's ledger: budget.lua in Redis decides every reservation (no local lease: near the end
// of a budget every decision must be Redis's own). Reservations live RESERVATION_TTL_MS unless
// their instance renews them, so a dead instance's reservations are gone within that bound.
// While Redis cannot answer, a subject that fails closed is refused with 503; any other spends
// at most its share (the budget divided by the instances) from a local book.
import { randomBytes } from 'node:crypto';
import type { Logger } from '../observability/logger.ts';
import { limiterUnavailableError } from '../ratelimit/rate-limit-headers.ts';
import type { RedisClient } from '../store/redis-connection.ts';
import { BudgetBook, type BudgetResult, type BudgetScopes } from './budget-book.ts';
import { type BudgetHold, type BudgetLedger, type BudgetSubject, RESERVATION_TTL_MS } from './budget-ledger.ts';
import { BudgetScript } from './budget-script.ts';

export interface RedisBudgetLedgerOptions {
  readonly logger: Logger;
  /** Key or account ids refused with 503 while Redis cannot answer, or every one. */
  readonly failClosed: (subject: BudgetSubject) => boolean;
  /** Instances sharing the budgets: the local share divides each budget by it. */
  readonly instances: () => number;
  readonly reservationTtlMs?: number;
  /** Called by close(), after the last settlements: closes the connection. */
  readonly onClose?: () => Promise<void>;
}

interface Settlement {
  readonly hold: BudgetHold;
  readonly cost: number;
}

export class RedisBudgetLedger implements BudgetLedger {
  readonly #script: BudgetScript;
  readonly #options: RedisBudgetLedgerOptions;
  readonly #ttlMs: number;
  readonly #instance = randomBytes(6).toString('base64url');
  /** Reservations in flight in Redis, renewed while their requests run. */
  readonly #held = new Set<BudgetHold>();
  /** Settlements whose write failed: retried until Redis takes them. */
  #unsettled: Settlement[] = [];
  /** What the local share let through while Redis could not answer, per period. */
  readonly #local = new BudgetBook();
  readonly #localHolds = new Set<BudgetHold>();
  readonly #timer: NodeJS.Timeout;
  #next = 0;
  /** Redis failed the last call: the outage is logged once. */
  #degraded = false;

  constructor(client: RedisClient, options: RedisBudgetLedgerOptions) {
    this.#script = new BudgetScript(client);
    this.#options = options;
    this.#ttlMs = options.reservationTtlMs ?? RESERVATION_TTL_MS;
    this.#timer = setInterval(() => void this.#maintain(), Math.floor(this.#ttlMs / 3)).unref();
  }

  async reserve(subject: BudgetSubject, scopes: BudgetScopes, amount: number): Promise<BudgetResult & { hold: BudgetHold | null }> {
    const id = `${this.#instance}.${++this.#next}`;
    let result: BudgetResult;
    try {
      result = await this.#script.apply(subject.accountId, subject.keyId, scopes, { kind: 'reserve', id, amount, ttlMs: this.#ttlMs });
    } catch (error) {
      return this.#fallback(subject, scopes, id, amount, error);
    }
    this.#degraded = false;
    if (!result.allowed) return { ...result, hold: null };
    const hold = { subject, scopes, id, amount };
    this.#held.add(hold);
    return { ...result, hold };
  }

  settle(hold: BudgetHold, cost: number): void {
    if (this.#localHolds.delete(hold)) {
      this.#local.apply(hold.scopes, { kind: 'settle', id: hold.id, cost }, Date.now());
      // What the local share let through is still spent: Redis hears of it as soon as it answers.
      if (cost > 0) this.#unsettled.push({ hold, cost });
      return;
    }
    if (!this.#held.delete(hold)) return;
    this.#script.apply(hold.subject.accountId, hold.subject.keyId, hold.scopes, { kind: 'settle', id: hold.id, cost })
      .catch(() => { this.#unsettled.push({ hold, cost }); });
  }

  read(subject: BudgetSubject, scopes: BudgetScopes): Promise<BudgetResult> {
    return this.#script.apply(subject.accountId, subject.keyId, scopes, { kind: 'read' });
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#retrySettlements();
    await this.#options.onClose?.();
  }

  #fallback(subject: BudgetSubject, scopes: BudgetScopes, id: string, amount: number, error: unknown): BudgetResult & { hold: BudgetHold | null } {
    if (!this.#degraded) this.#options.logger.warn({ err: error }, 'budget ledger unreachable: budgets fall back to the limits fail mode');
    this.#degraded = true;
    if (this.#options.failClosed(subject)) throw limiterUnavailableError();
    const instances = Math.max(1, this.#options.instances());
    const share = (budget: BudgetScopes['key']) => budget && { limit: Math.floor(budget.limit / instances), period: budget.period };
    const local = { ...scopes, key: share(scopes.key), account: share(scopes.account) };
    const result = this.#local.apply(local, { kind: 'reserve', id, amount, ttlMs: Number.MAX_SAFE_INTEGER / 2 }, Date.now());
    if (!result.allowed) return { ...result, hold: null };
    const hold = { subject, scopes: local, id, amount };
    this.#localHolds.add(hold);
    return { ...result, hold };
  }

  async #maintain(): Promise<void> {
    await this.#retrySettlements();
    const bySubject = new Map<string, BudgetHold[]>();
    for (const hold of this.#held) {
      const name = `${hold.subject.accountId}\n${hold.subject.keyId}`;
      const holds = bySubject.get(name);
      if (holds === undefined) bySubject.set(name, [hold]);
      else holds.push(hold);
    }
    await Promise.all([...bySubject.values()].map((holds) => {
      const { subject, scopes } = holds[0]!;
      return this.#script.apply(subject.accountId, subject.keyId, scopes, { kind: 'renew', ids: holds.map((hold) => hold.id), ttlMs: this.#ttlMs }).catch(() => {});
    }));
  }

  async #retrySettlements(): Promise<void> {
    if (this.#unsettled.length === 0) return;
    const pending = this.#unsettled;
    this.#unsettled = [];
    await Promise.all(pending.map(async (settlement) => {
      const { hold, cost } = settlement;
      try {
        await this.#script.apply(hold.subject.accountId, hold.subject.keyId, hold.scopes, { kind: 'settle', id: hold.id, cost });
      } catch {
        this.#unsettled.push(settlement);
      }
    }));
  }
}
