// The BudgetLedger contract: reserve a request's worst-case cost against its key's and account's
// budgets, then settle it with the real cost. In memory for the embedded default, by budget.lua
// in Redis for a fleet.
import type { Budget, BudgetResult, BudgetScopes } from './budget-book.ts';

export interface BudgetSubject {
  readonly keyId: string;
  readonly accountId: string;
  /** The key's and its account's own budgets, from their records (absent or null: none). */
  readonly keyBudget?: Budget | null;
  readonly accountBudget?: Budget | null;
}

/** An admitted reservation: settle it exactly once, whatever way the request ends. */
export interface BudgetHold {
  readonly subject: BudgetSubject;
  readonly scopes: BudgetScopes;
  readonly id: string;
  readonly amount: number;
}

export interface BudgetLedger {
  /**
   * Reserves `amount` micro-units on every budget in `scopes`, or refuses and changes nothing.
   * Rejects only with ApiError `limiter_unavailable` (a subject configured to fail closed).
   */
  reserve(subject: BudgetSubject, scopes: BudgetScopes, amount: number): Promise<BudgetResult & { readonly hold: BudgetHold | null }>;
  /** reserve() decided at once, for a ledger that can (in memory): the request then goes on without waiting a turn. */
  reserveNow?(subject: BudgetSubject, scopes: BudgetScopes, amount: number): BudgetResult & { readonly hold: BudgetHold | null };
  /** Replaces the reservation with `cost`. Never rejects; a write that fails is retried. */
  settle(hold: BudgetHold, cost: number): void;
  /** Spent and reserved now, for the dashboard and the CLI. */
  read(subject: BudgetSubject, scopes: BudgetScopes): Promise<BudgetResult>;
  close(): Promise<void>;
}

/** How long a reservation lives unrenewed: what a dead instance's reservations can hold back at most. */
export const RESERVATION_TTL_MS = 10_000;
