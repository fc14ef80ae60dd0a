// One bounded autocannon run against one request, with our own latency record: autocannon's
// histogram keeps whole milliseconds, too coarse for sub-millisecond requests, so every
// response time (a float, in ms) is also kept here and percentiles are taken exactly.
import autocannon, { type Result } from 'autocannon';
import type { HttpRequest } from './scenarios/index.ts';

export interface LoadOptions {
  readonly seconds: number;
  readonly connections: number;
}

export interface LoadResult {
  readonly seconds: number;
  /** Responses received (any status). */
  readonly responses: number;
  readonly requestsPerSecond: number;
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly mean: number; readonly max: number };
  /** Responses by status code. */
  readonly statuses: Readonly<Record<string, number>>;
  /** Connection errors and timeouts, as autocannon counts them. */
  readonly errors: number;
  readonly timeouts: number;
}

/** A growable array of response times. */
class Samples {
  #values = new Float64Array(1 << 16);
  #length = 0;

  add(value: number): void {
    if (this.#length === this.#values.length) {
      const bigger = new Float64Array(this.#values.length * 2);
      bigger.set(this.#values);
      this.#values = bigger;
    }
    this.#values[this.#length++] = value;
  }

  summary(): LoadResult['latencyMs'] {
    const sorted = this.#values.slice(0, this.#length).sort();
    if (sorted.length === 0) return { p50: Number.NaN, p99: Number.NaN, mean: Number.NaN, max: Number.NaN };
    const at = (quantile: number) => sorted[Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1)]!;
    let sum = 0;
    for (const value of sorted) sum += value;
    return { p50: at(0.5), p99: at(0.99), mean: sum / sorted.length, max: sorted[sorted.length - 1]! };
  }
}

export function runLoad(request: HttpRequest, options: LoadOptions): Promise<LoadResult> {
  const samples = new Samples();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: request.url,
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        connections: options.connections,
        duration: options.seconds,
        timeout: 10,
      },
      (error, result) => {
        if (error) reject(error);
        else resolve(summarise(result, samples));
      },
    );
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTimeMs: number) => samples.add(responseTimeMs));
  });
}

function summarise(result: Result, samples: Samples): LoadResult {
  const statuses: Record<string, number> = {};
  let responses = 0;
  for (const [status, { count }] of Object.entries(result.statusCodeStats)) {
    statuses[status] = count;
    responses += count;
  }
  return {
    seconds: result.duration,
    responses,
    requestsPerSecond: responses / result.duration,
    latencyMs: samples.summary(),
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}
