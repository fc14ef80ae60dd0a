// Bounds retries to a share of the traffic, so that an upstream outage costs it at most
// `budgetPercent` more requests instead of doubling them. Each first attempt earns a fraction of a
// retry; a retry spends a whole one; `reserve` lets a quiet service retry before it earned any.
export class RetryBudget {
  readonly #earnedPerRequest: number;
  readonly #ceiling: number;
  #balance: number;
  #spent = 0;

  constructor(settings: { readonly budgetPercent: number; readonly reserve: number }) {
    this.#earnedPerRequest = settings.budgetPercent / 100;
    this.#ceiling = Math.max(1, settings.reserve);
    this.#balance = settings.reserve;
  }

  /** A request's first attempt. */
  deposit(): void {
    this.#balance = Math.min(this.#ceiling, this.#balance + this.#earnedPerRequest);
  }

  /** True, and the retry is paid for, when the budget allows one more. */
  tryWithdraw(): boolean {
    if (this.#balance < 1) return false;
    this.#balance -= 1;
    this.#spent += 1;
    return true;
  }

  /** Retries made so far (a counter for metrics). */
  get spent(): number {
    return this.#spent;
  }
}
