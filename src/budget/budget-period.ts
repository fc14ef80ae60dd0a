// Budget periods in UTC: a day, a calendar month, or no end at all. budget.lua works the same out
// of Redis TIME; this is the model's (and the in-memory ledger's) copy.
export type BudgetPeriod = 'day' | 'month' | 'total';

const DAY_MS = 86_400_000;

export interface PeriodNow {
  /** Distinct for each period of its kind; 0 for `total`. */
  readonly id: number;
  /** When it ends, ms since the epoch; null for `total`. */
  readonly endsAt: number | null;
}

export function periodAt(period: BudgetPeriod, now: number): PeriodNow {
  if (period === 'day') {
    const day = Math.floor(now / DAY_MS);
    return { id: day, endsAt: (day + 1) * DAY_MS };
  }
  if (period === 'month') {
    const date = new Date(Math.floor(now / DAY_MS) * DAY_MS);
    const year = date.getUTCFullYear();
    const month = date.getUTCMonth();
    return { id: year * 12 + month, endsAt: Date.UTC(year, month + 1, 1) };
  }
  return { id: 0, endsAt: null };
}
