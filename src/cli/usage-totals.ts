// `munja usage`'s sums: the usage rows (per key, day and model) added up per key, model, account or
// day, with the total.
import type { ApiKeyRecord, UsageRow } from '../store/store.ts';

export type UsageGrouping = 'key' | 'model' | 'account' | 'day';
export const USAGE_GROUPINGS: readonly UsageGrouping[] = ['key', 'model', 'account', 'day'];

export interface Totals { requests: number; promptTokens: number; completionTokens: number; costMicros: number }

export interface UsageSums {
  /** Per group, in the order shown: keys as listed, the others sorted by name. */
  readonly groups: Map<string, Totals>;
  readonly total: Totals;
}

export function emptyTotals(): Totals {
  return { requests: 0, promptTokens: 0, completionTokens: 0, costMicros: 0 };
}

/** `keys`: the keys the rows are of (their order is the keys' order), and their accounts' emails. */
export function sumUsage(rows: readonly UsageRow[], by: UsageGrouping, keys: readonly ApiKeyRecord[], emails: ReadonlyMap<string, string>): UsageSums {
  const accountOf = new Map(keys.map((key) => [key.id, emails.get(key.accountId) ?? '?']));
  const groupOf = (row: UsageRow): string => {
    switch (by) {
      case 'key': return row.keyId;
      case 'model': return row.model;
      case 'account': return accountOf.get(row.keyId) ?? '?';
      case 'day': return row.day;
    }
  };
  const sums = new Map<string, Totals>();
  const total = emptyTotals();
  for (const row of rows) {
    const group = groupOf(row);
    let sum = sums.get(group);
    if (sum === undefined) sums.set(group, (sum = emptyTotals()));
    for (const totals of [sum, total]) {
      totals.requests += row.requests;
      totals.promptTokens += row.promptTokens;
      totals.completionTokens += row.completionTokens;
      totals.costMicros += row.costMicros;
    }
  }
  const order = by === 'key' ? keys.map((key) => key.id).filter((id) => sums.has(id)) : [...sums.keys()].sort();
  return { groups: new Map(order.map((group) => [group, sums.get(group)!])), total };
}
