// Closed-loop load (N connections, each sending its next request as soon as the last one is
// answered) for a bounded time, pinned to the load generator's CPU. wrk (C, a few µs per request)
// when it is installed: the generator shares its CPU with the mock upstream, and autocannon (Node)
// would itself be the bottleneck at tens of thousands of requests per second. Without wrk, autocannon.
import autocannon, { type Result } from 'autocannon';
import { Samples } from './samples.ts';
import type { HttpRequest } from './scenarios/index.ts';
import { runWrk } from './wrk-load.ts';

export interface LoadOptions {
  readonly seconds: number;
  readonly connections: number;
  /** The status every response should have: counted exactly by autocannon, by class (< 400 or not) by wrk. */
  readonly expectStatus: number;
}

export interface LoadResult {
  readonly tool: 'wrk' | 'autocannon';
  readonly seconds: number;
  /** Responses received (any status). */
  readonly responses: number;
  readonly requestsPerSecond: number;
  readonly latencyMs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly mean: number; readonly max: number };
  readonly unexpectedStatuses: number;
  /** Connection errors and timeouts. */
  readonly errors: number;
}

export type LoadTool = 'wrk' | 'autocannon';

export function runLoad(tool: LoadTool, request: HttpRequest, options: LoadOptions & { cpus?: string; tempDir: string }): Promise<LoadResult> {
  return tool === 'wrk' ? runWrk(request, options) : runAutocannon(request, options);
}

function runAutocannon(request: HttpRequest, options: LoadOptions): Promise<LoadResult> {
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
        else resolve(summarise(result, samples, options.expectStatus));
      },
    );
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTimeMs: number) => samples.add(responseTimeMs));
  });
}

function summarise(result: Result, samples: Samples, expectStatus: number): LoadResult {
  let responses = 0;
  let expected = 0;
  for (const [status, { count }] of Object.entries(result.statusCodeStats)) {
    responses += count;
    if (status === String(expectStatus)) expected += count;
  }
  const latency = samples.percentiles();
  return {
    tool: 'autocannon',
    seconds: result.duration,
    responses,
    requestsPerSecond: responses / result.duration,
    latencyMs: { p50: latency.p50, p90: latency.p90, p99: latency.p99, mean: latency.mean, max: latency.max },
    unexpectedStatuses: responses - expected,
    errors: result.errors + result.timeouts,
  };
}
