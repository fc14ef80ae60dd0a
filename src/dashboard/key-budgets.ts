// What each key listed in the dashboard has of its budget: the tighter of the key's and its
// account's, as spent, reserved by requests in flight, and left, in the currency.
import type { BudgetGate } from '../budget/budget-gate.ts';
import { tightest } from '../budget/budget-gate.ts';
import { formatMicros } from '../budget/price.ts';
import type { Account, ApiKeyRecord } from '../store/store.ts';

export interface KeyBudgetView {
  readonly scope: 'key' | 'account';
  readonly currency: string;
  readonly period: 'day' | 'month' | 'total';
  readonly limit: string;
  readonly spent: string;
  readonly reserved: string;
  readonly left: string;
  /** When the period ends (ISO); null for `total`. */
  readonly renewsAt: string | null;
}

/** One entry per key of the account, in order; null for a key without a budget (or when budgets are off). */
export async function keyBudgets(gate: BudgetGate | null, account: Account, keys: readonly ApiKeyRecord[]): Promise<Array<KeyBudgetView | null>> {
  if (gate === null) return keys.map(() => null);
  return Promise.all(keys.map(async (key) => {
    const subject = { keyId: key.id, accountId: key.accountId, keyBudget: key.budget ?? null, accountBudget: account.budget ?? null };
    const scopes = gate.scopesOf(subject);
    if (scopes === null) return null;
    const state = await gate.ledger.read(subject, scopes);
    const limited = tightest(state, scopes)!;
    return {
      scope: limited.name,
      currency: gate.settings.currency,
      period: limited.budget.period,
      limit: formatMicros(limited.budget.limit),
      spent: formatMicros(limited.state.spent),
      reserved: formatMicros(limited.state.reserved),
      left: formatMicros(limited.left),
      renewsAt: limited.state.endsAt === null ? null : new Date(limited.state.endsAt).toISOString(),
    };
  }));
}
