// Latency samples kept exactly (a float per response) and their percentiles: the generators'
// histograms with whole-millisecond or coarse buckets are too rough for sub-millisecond figures.

export interface Percentiles {
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
  readonly mean: number;
  readonly max: number;
}

export class Samples {
  #values: Float64Array;
  #length = 0;

  constructor(expected = 1 << 16) {
    this.#values = new Float64Array(Math.max(16, expected));
  }

  add(value: number): void {
    if (this.#length === this.#values.length) {
      const bigger = new Float64Array(this.#values.length * 2);
      bigger.set(this.#values);
      this.#values = bigger;
    }
    this.#values[this.#length++] = value;
  }

  /** A copy of the samples, in the order they were added. */
  values(): Float64Array {
    return this.#values.slice(0, this.#length);
  }

  percentiles(): Percentiles {
    return percentiles(this.values());
  }
}

/** Percentiles of `values` (sorted in place). */
export function percentiles(values: Float64Array): Percentiles {
  const sorted = values.sort();
  const count = sorted.length;
  if (count === 0) return { count, p50: Number.NaN, p90: Number.NaN, p99: Number.NaN, p999: Number.NaN, mean: Number.NaN, max: Number.NaN };
  const at = (quantile: number) => sorted[Math.min(count - 1, Math.max(0, Math.ceil(quantile * count) - 1))]!;
  let sum = 0;
  for (const value of sorted) sum += value;
  return { count, p50: at(0.5), p90: at(0.9), p99: at(0.99), p999: at(0.999), mean: sum / count, max: sorted[count - 1]! };
}

/** The value below which `quantile` of the sorted samples lie. */
export function quantileOf(sorted: Float64Array, quantile: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(quantile * sorted.length) - 1))]!;
}
