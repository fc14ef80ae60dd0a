// Budgets on the request path: which budgets a key draws on, what a request may cost at worst,
// the 429 when that does not fit, and settlement with the real cost. A key's budget is the
// config's entry for its id when there is one (the operator's file is the authority), else its
// record's own (set by the CLI or the admin API), else the config's `key`; an account's likewise.
// With no budget in the config, a request whose key and account records carry none is let through
// after reading those two fields of its principal, nothing more.
import type { BudgetSetting, BudgetsConfig, ModelConfig } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Budget, BudgetResult, BudgetScopes, ScopeState } from './budget-book.ts';
import type { BudgetHold, BudgetLedger, BudgetSubject } from './budget-ledger.ts';
import { budgetKeys } from './budget-script.ts';
import { costMicros, formatMicros } from './price.ts';

export class BudgetGate {
  readonly ledger: BudgetLedger;
  readonly settings: BudgetsConfig;
  /** Whether the config names any budget: without, only the records' own budgets count. */
  readonly #configured: boolean;
  /** Per key id: its scopes, and the record budgets they were made from (a key never changes account). */
  readonly #scopes = new Map<string, ResolvedScopes>();

  constructor(ledger: BudgetLedger, settings: BudgetsConfig) {
    this.ledger = ledger;
    this.settings = settings;
    this.#configured = BudgetGate.wanted(settings);
  }

  /** Whether the settings name any budget at all. */
  static wanted(settings: BudgetsConfig): boolean {
    const named = (budgets: ReadonlyMap<string, BudgetSetting | null>) => [...budgets.values()].some((budget) => budget !== null);
    return settings.key !== null || settings.account !== null || named(settings.keys) || named(settings.accounts);
  }

  scopesOf(subject: BudgetSubject): BudgetScopes | null {
    const keyBudget = subject.keyBudget ?? null;
    const accountBudget = subject.accountBudget ?? null;
    const resolved = this.#scopes.get(subject.keyId);
    if (resolved !== undefined && sameBudget(resolved.keyBudget, keyBudget) && sameBudget(resolved.accountBudget, accountBudget)) return resolved.scopes;
    const { settings } = this;
    const key = settings.keys.has(subject.keyId) ? settings.keys.get(subject.keyId)! : keyBudget ?? settings.key;
    const account = settings.accounts.has(subject.accountId) ? settings.accounts.get(subject.accountId)! : accountBudget ?? settings.account;
    const [keyScope, , accountScope] = budgetKeys(subject.accountId, subject.keyId);
    const scopes = key === null && account === null ? null : { keyScope, key, accountScope, account };
    this.#scopes.set(subject.keyId, { keyBudget, accountBudget, scopes });
    return scopes;
  }

  /**
   * Reserves the worst case of a request (its prompt, and `completionTokens` at the output price);
   * null when there is nothing to reserve (no budget, or a model without a price); the hold itself
   * when the ledger decides at once. Throws (or rejects with) 429 `budget_exceeded` when it does not fit.
   */
  reserve(subject: BudgetSubject, model: ModelConfig, promptTokens: number, completionTokens: number): BudgetHold | Promise<BudgetHold> | null {
    if (!this.#configured && subject.keyBudget == null && subject.accountBudget == null) return null;
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

interface ResolvedScopes {
  readonly keyBudget: Budget | null;
  readonly accountBudget: Budget | null;
  readonly scopes: BudgetScopes | null;
}

function sameBudget(a: Budget | null, b: Budget | null): boolean {
  return a === b || (a !== null && b !== null && a.limit === b.limit && a.period === b.period);
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
