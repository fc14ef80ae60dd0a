// Usage on Redis: one hash per key and day, with four counters per model in it. A model's fields
// are `requests:<model>`, `promptTokens:<model>`, `completionTokens:<model>` and
// `costMicros:<model>`; the counters written before usage had a model are the bare names, read as
// model '' (unknown). A flush adds to one hash per key, day and model: O(1) each.
import type { UsageRow } from './store.ts';

type Counter = 'requests' | 'promptTokens' | 'completionTokens' | 'costMicros';
const COUNTERS: ReadonlySet<string> = new Set<Counter>(['requests', 'promptTokens', 'completionTokens', 'costMicros']);

/** What follows a counter's name in its field for `model`. */
export function usageFieldSuffix(model: string): string {
  return model === '' ? '' : `:${model}`;
}

/**
 * A USAGE_BY_DAY row, [day, field, value, …], as one row per model (of `model` alone when given),
 * ordered by model.
 */
export function toUsageRows(keyId: string, row: unknown, model: string | undefined): UsageRow[] {
  if (!Array.isArray(row)) return [];
  const [day, ...fields] = row.map(String);
  const perModel = new Map<string, Record<Counter, number>>();
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const field = fields[i]!;
    const colon = field.indexOf(':');
    const counter = colon === -1 ? field : field.slice(0, colon);
    const of = colon === -1 ? '' : field.slice(colon + 1);
    if (!COUNTERS.has(counter) || (model !== undefined && of !== model)) continue;
    let counts = perModel.get(of);
    if (counts === undefined) perModel.set(of, (counts = { requests: 0, promptTokens: 0, completionTokens: 0, costMicros: 0 }));
    counts[counter as Counter] = Number(fields[i + 1]);
  }
  return [...perModel].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([of, counts]) => Object.freeze({
    keyId, day: day ?? '', model: of,
    requests: counts.requests, promptTokens: counts.promptTokens, completionTokens: counts.completionTokens, costMicros: counts.costMicros,
  }));
}
