// The embedded ledger: the budget book in this process, on this process's clock. Spend counted
// here is this process's alone (one instance without Redis).
import { BudgetBook, type BudgetResult, type BudgetScopes } from './budget-book.ts';
import type { BudgetHold, BudgetLedger, BudgetSubject } from './budget-ledger.ts';

let nextId = 0;

export class MemoryBudgetLedger implements BudgetLedger {
  readonly #book = new BudgetBook();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  reserve(subject: BudgetSubject, scopes: BudgetScopes, amount: number): Promise<BudgetResult & { hold: BudgetHold | null }> {
    return Promise.resolve(this.reserveNow(subject, scopes, amount));
  }

  /** reserve(), decided at once. */
  reserveNow(subject: BudgetSubject, scopes: BudgetScopes, amount: number): BudgetResult & { hold: BudgetHold | null } {
    const id = `m${++nextId}`;
    // A process's own reservations cannot outlive it: no expiry is needed.
    const result = this.#book.apply(scopes, { kind: 'reserve', id, amount, ttlMs: Number.MAX_SAFE_INTEGER / 2 }, this.#now());
    return { ...result, hold: result.allowed ? { subject, scopes, id, amount } : null };
  }

  settle(hold: BudgetHold, cost: number): void {
    this.#book.apply(hold.scopes, { kind: 'settle', id: hold.id, cost }, this.#now());
  }

  read(_subject: BudgetSubject, scopes: BudgetScopes): Promise<BudgetResult> {
    return Promise.resolve(this.#book.apply(scopes, { kind: 'read' }, this.#now()));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
