// Metric objects for the per-request series: plain numbers keyed by a small integer, each series'
// labels built once. get() returns prom-client's JSON shape, which both its text format and its
// cluster aggregation (AggregatorRegistry) consume; registered with registry.registerMetric.
export type Labels = Record<string, string | number>;
interface MetricValue {
  labels: Labels;
  value: number;
  metricName?: string;
}
interface MetricData {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: MetricValue[];
  aggregator: 'sum';
}

/** A counter whose series are keyed by a small integer; each series' labels are built once. */
export class KeyedCounter {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  readonly #series = new Map<number, MetricValue>();
  readonly name: string;
  readonly help: string;
  readonly #labelsOf: (key: number) => Labels;

  constructor(name: string, help: string, labelsOf: (key: number) => Labels, preset: readonly number[] = []) {
    this.name = name;
    this.help = help;
    this.#labelsOf = labelsOf;
    for (const key of preset) this.add(key, 0);
  }

  add(key: number, by: number): void {
    const series = this.#series.get(key);
    if (series !== undefined) series.value += by;
    else this.#series.set(key, { labels: this.#labelsOf(key), value: by });
  }

  get(): MetricData {
    const values = [...this.#series.values()].map((series) => ({ labels: { ...series.labels }, value: series.value }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

interface HistogramSeries {
  readonly labels: Labels;
  /** Per bucket (not cumulative); the last slot is above the highest bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/** A histogram keyed like KeyedCounter; get() gives prom-client's _bucket/_sum/_count values. */
export class KeyedHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #series = new Map<number, HistogramSeries>();
  readonly name: string;
  readonly help: string;
  readonly #bounds: readonly number[];
  readonly #labelsOf: (key: number) => Labels;

  constructor(name: string, help: string, bounds: readonly number[], labelsOf: (key: number) => Labels) {
    this.name = name;
    this.help = help;
    this.#bounds = bounds;
    this.#labelsOf = labelsOf;
  }

  observe(key: number, value: number): void {
    let series = this.#series.get(key);
    if (series === undefined) {
      series = { labels: this.#labelsOf(key), counts: new Float64Array(this.#bounds.length + 1), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    const bounds = this.#bounds;
    let bucket = 0;
    while (bucket < bounds.length && value > bounds[bucket]!) bucket++;
    series.counts[bucket]! += 1;
    series.sum += value;
    series.count += 1;
  }

  get(): MetricData {
    const values: MetricValue[] = [];
    for (const series of this.#series.values()) {
      let cumulative = 0;
      for (let index = 0; index < this.#bounds.length; index++) {
        cumulative += series.counts[index]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { ...series.labels, le: this.#bounds[index]! }, value: cumulative });
      }
      values.push({ metricName: `${this.name}_bucket`, labels: { ...series.labels, le: '+Inf' }, value: series.count });
      values.push({ metricName: `${this.name}_sum`, labels: { ...series.labels }, value: series.sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...series.labels }, value: series.count });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

/** A counter kept elsewhere (the limiter's), read at scrape time. */
export class ReadCounter {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  readonly #read: () => number | null;

  constructor(name: string, help: string, read: () => number | null) {
    this.name = name;
    this.help = help;
    this.#read = read;
  }

  get(): MetricData {
    const value = this.#read();
    return { name: this.name, help: this.help, type: this.type, values: value === null ? [] : [{ labels: {}, value }], aggregator: this.aggregator };
  }
}
