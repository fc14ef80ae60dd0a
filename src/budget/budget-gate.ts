// Budgets on the request path: which budgets a key draws on, what a request may cost at worst,
// the 429 when that does not fit, and settlement with the real cost. Made only when some budget
// is configured: with none, the request path holds null and never looks.
import type { BudgetSetting, BudgetsConfig, ModelConfig } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import type { BudgetResult, BudgetScopes, ScopeState } from './budget-book.ts';
import type { BudgetHold, BudgetLedger, BudgetSubject } from './budget-ledger.ts';
import { budgetKeys } from './budget-script.ts';
import { costMicros, formatMicros } from './price.ts';

export class BudgetGate {
  readonly ledger: BudgetLedger;
  readonly settings: BudgetsConfig;
  /** Per key id: its scopes (null: no budget), made once (a key never changes account). */
  readonly #scopes = new Map<string, BudgetScopes | null>();

  constructor(ledger: BudgetLedger, settings: BudgetsConfig) {
    this.ledger = ledger;
    this.settings = settings;
  }

  /** Whether the settings name any budget at all. */
  static wanted(settings: BudgetsConfig): boolean {
    const named = (budgets: ReadonlyMap<string, BudgetSetting | null>) => [...budgets.values()].some((budget) => budget !== null);
    return settings.key !== null || settings.account !== null || named(settings.keys) || named(settings.accounts);
  }

  scopesOf(subject: BudgetSubject): BudgetScopes | null {
    let scopes = this.#scopes.get(subject.keyId);
    if (scopes === undefined) {
      const key = this.settings.keys.has(subject.keyId) ? this.settings.keys.get(subject.keyId)! : this.settings.key;
      const account = this.settings.accounts.has(subject.accountId) ? this.settings.accounts.get(subject.accountId)! : this.settings.account;
      const [keyScope, , accountScope] = budgetKeys(subject.accountId, subject.keyId);
      scopes = key === null && account === null ? null : { keyScope, key, accountScope, account };
      this.#scopes.set(subject.keyId, scopes);
    }
    return scopes;
  }

  /**
   * Reserves the worst case of a request (its prompt, and `completionTokens` at the output price);
   * null when there is nothing to reserve (no budget, or a model without a price); the hold itself
   * when the ledger decides at once. Throws (or rejects with) 429 `budget_exceeded` when it does not fit.
   */
  reserve(subject: BudgetSubject, model: ModelConfig, promptTokens: number, completionTokens: number): BudgetHold | Promise<BudgetHold> | null {
    const scopes = this.scopesOf(subject);
    if (scopes === null) return null;
    const amount = costMicros(model.price, promptTokens, completionTokens);
    if (amount === 0) return null;
    const { currency } = this.settings;
    if (this.ledger.reserveNow !== undefined) {
      const result = this.ledger.reserveNow(subject, scopes, amount);
      if (result.hold === null) throw budgetExceeded(result, scopes, amount, currency);
      return result.hold;
    }
    return this.ledger.reserve(subject, scopes, amount).then((result) => {
      if (result.hold === null) throw budgetExceeded(result, scopes, amount, currency);
      return result.hold;
    });
  }

  /** Spent and reserved on the subject's budgets now; null without a budget. */
  async state(subject: BudgetSubject): Promise<BudgetResult | null> {
    const scopes = this.scopesOf(subject);
    return scopes === null ? null : this.ledger.read(subject, scopes);
  }

  settle(hold: BudgetHold, cost: number): void {
    this.ledger.settle(hold, cost);
  }
}

/** The budget with the least left, and how much that is (never below 0). */
export function tightest(result: BudgetResult, scopes: BudgetScopes): { readonly budget: BudgetSetting; readonly state: ScopeState; readonly left: number; readonly name: 'key' | 'account' } | null {
  const left = (budget: BudgetSetting, state: ScopeState) => Math.max(0, budget.limit - state.spent - state.reserved);
  const key = scopes.key && { budget: scopes.key, state: result.key, left: left(scopes.key, result.key), name: 'key' as const };
  const account = scopes.account && { budget: scopes.account, state: result.account, left: left(scopes.account, result.account), name: 'account' as const };
  if (key === null) return account;
  if (account === null) return key;
  return account.left < key.left ? account : key;
}

const PERIOD_WORDS = { day: 'daily ', month: 'monthly ', total: '' } as const;

function budgetExceeded(result: BudgetResult, scopes: BudgetScopes, amount: number, currency: string): ApiError {
  const limited = tightest(result, scopes)!;
  const headers: Record<string, string> = {
    'x-budget-limit': formatMicros(limited.budget.limit),
    'x-budget-remaining': formatMicros(limited.left),
    'x-budget-currency': currency,
    'x-budget-period': limited.budget.period,
    // Not a wait that a retry loop should sit out.
    'x-should-retry': 'false',
  };
  const whose = limited.name === 'account' ? "the account's" : "this key's";
  const needs = `This request could cost up to ${formatMicros(amount)} ${currency}; ${whose} ${PERIOD_WORDS[limited.budget.period]}budget has ${formatMicros(limited.left)} ${currency} left.`;
  const { endsAt } = limited.state;
  if (endsAt === null) return new ApiError('budget_exceeded', { message: `${needs} Reduce the input or max_tokens.`, headers });
  const seconds = Math.max(1, Math.ceil((endsAt - result.now) / 1000));
  headers['x-budget-reset'] = new Date(endsAt).toISOString();
  headers['retry-after'] = String(seconds);
  return new ApiError('budget_exceeded', { message: `${needs} The budget renews at ${new Date(endsAt).toISOString()}; or reduce the input or max_tokens.`, headers });
}
