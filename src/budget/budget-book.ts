// The budget ledger's rules as plain TypeScript: the model budget.lua is held to (operation for
// operation, by a property test) and the engine of the in-memory ledger. Amounts are integers in
// micro-units of the service's currency.
import { type BudgetPeriod, periodAt } from './budget-period.ts';

/** A budget: at most `limit` micro-units spent per `period`. */
export interface Budget {
  readonly limit: number;
  readonly period: BudgetPeriod;
}

/** The budgets a request draws on (null: none at that level); the scope names identify the stored state. */
export interface BudgetScopes {
  readonly keyScope: string;
  readonly key: Budget | null;
  readonly accountScope: string;
  readonly account: Budget | null;
}

export interface ScopeState {
  readonly spent: number;
  readonly reserved: number;
  /** The period's end, ms; null for `total` (or no budget). */
  readonly endsAt: number | null;
}

export type BudgetOp =
  | { readonly kind: 'reserve'; readonly id: string; readonly amount: number; readonly ttlMs: number }
  | { readonly kind: 'settle'; readonly id: string; readonly cost: number }
  | { readonly kind: 'renew'; readonly ids: readonly string[]; readonly ttlMs: number }
  | { readonly kind: 'read' };

export interface BudgetResult {
  readonly allowed: boolean;
  /** The budget that refused a reservation (the one with the least left). */
  readonly limitedBy: 'key' | 'account' | null;
  readonly key: ScopeState;
  readonly account: ScopeState;
  readonly now: number;
}

interface Stored {
  period: number;
  /** The kind and end (ms; Infinity for `total`) of `period`, so that a next operation within it need not work it out. */
  periodKind: BudgetPeriod | null;
  periodEndsAt: number;
  spent: number;
  /** Reservation id → [amount, expiry ms]. */
  readonly reservations: Map<string, [number, number]>;
  /** The sum of the reservations' amounts, kept as they come and go (not summed on every operation). */
  reserved: number;
  /** No reservation expires before this (ms): until then nothing needs to be swept. */
  nextExpiry: number;
}

interface Loaded {
  readonly stored: Stored;
  readonly budget: Budget;
  readonly endsAt: number | null;
}

const NONE: ScopeState = Object.freeze({ spent: 0, reserved: 0, endsAt: null });

export class BudgetBook {
  readonly scopes = new Map<string, Stored>();

  apply(scopes: BudgetScopes, op: BudgetOp, now: number): BudgetResult {
    const loaded = [this.#load(scopes.keyScope, scopes.key, now), this.#load(scopes.accountScope, scopes.account, now)] as const;
    let allowed = true;
    let limitedBy: 'key' | 'account' | null = null;
    switch (op.kind) {
      case 'reserve': {
        let tightest = Infinity;
        loaded.forEach((scope, index) => {
          if (scope === null) return;
          const left = scope.budget.limit - scope.stored.spent - scope.stored.reserved;
          if (op.amount > left && left < tightest) {
            allowed = false;
            limitedBy = index === 0 ? 'key' : 'account';
            tightest = left;
          }
        });
        if (allowed) for (const scope of loaded) if (scope !== null) hold(scope, op.id, op.amount, now + op.ttlMs);
        break;
      }
      case 'settle':
        for (const scope of loaded) {
          if (scope === null) continue;
          const held = scope.stored.reservations.get(op.id);
          if (held !== undefined) {
            scope.stored.reservations.delete(op.id);
            scope.stored.reserved -= held[0];
          }
          scope.stored.spent += op.cost;
        }
        break;
      case 'renew':
        for (const scope of loaded) {
          if (scope === null) continue;
          for (const id of op.ids) {
            const held = scope.stored.reservations.get(id);
            if (held !== undefined) hold(scope, id, held[0], now + op.ttlMs);
          }
        }
        break;
      case 'read':
        break;
    }
    return { allowed, limitedBy, key: stateOf(loaded[0]), account: stateOf(loaded[1]), now };
  }

  /** The scope in its current period, its expired reservations dropped; null without a budget. */
  #load(name: string, budget: Budget | null, now: number): Loaded | null {
    if (budget === null) return null;
    let stored = this.scopes.get(name);
    if (stored === undefined) {
      const { id, endsAt } = periodAt(budget.period, now);
      stored = { period: id, periodKind: budget.period, periodEndsAt: endsAt ?? Infinity, spent: 0, reservations: new Map(), reserved: 0, nextExpiry: Infinity };
      this.scopes.set(name, stored);
    } else if (stored.periodKind !== budget.period || now >= stored.periodEndsAt) {
      const { id, endsAt } = periodAt(budget.period, now);
      if (stored.period !== id) {
        stored.period = id;
        stored.spent = 0;
      }
      stored.periodKind = budget.period;
      stored.periodEndsAt = endsAt ?? Infinity;
    }
    if (stored.nextExpiry <= now) sweep(stored, now);
    return { stored, budget, endsAt: stored.periodEndsAt === Infinity ? null : stored.periodEndsAt };
  }
}

/** Drops the expired reservations and works out the sum and the next expiry again. */
function sweep(stored: Stored, now: number): void {
  let reserved = 0;
  let nextExpiry = Infinity;
  for (const [reservation, [amount, expiry]] of stored.reservations) {
    if (expiry <= now) {
      stored.reservations.delete(reservation);
    } else {
      reserved += amount;
      nextExpiry = Math.min(nextExpiry, expiry);
    }
  }
  stored.reserved = reserved;
  stored.nextExpiry = nextExpiry;
}

function hold(scope: Loaded, id: string, amount: number, expiry: number): void {
  const { stored } = scope;
  // A renewal keeps its amount (as budget.lua does): the sum changes only for a new reservation.
  if (!stored.reservations.has(id)) stored.reserved += amount;
  stored.reservations.set(id, [amount, expiry]);
  if (expiry < stored.nextExpiry) stored.nextExpiry = expiry;
}

function stateOf(scope: Loaded | null): ScopeState {
  return scope === null ? NONE : { spent: scope.stored.spent, reserved: scope.stored.reserved, endsAt: scope.endsAt };
}
