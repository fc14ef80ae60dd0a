// A completion sent to one of a model's upstreams, with at most one more attempt: only when nothing
// has reached the client yet (a failed attempt rejects before the response starts), only for
// failures another attempt can fix, after a jittered pause, and within the retry budget.
import type { ResilienceConfig, UpstreamConfig, UpstreamTimeouts } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import { clampSeconds, retryAfterHeaders, type UpstreamAttemptError } from '../upstream/upstream-errors.ts';
import { type ExchangeListener, startExchange, type UpstreamCall, type UpstreamOutcome } from '../upstream/upstream-exchange.ts';
import type { UpstreamPools } from '../upstream/upstream-pools.ts';
import type { InFlight } from './in-flight.ts';
import type { RetryBudget } from './retry-budget.ts';
import type { UpstreamHealth } from './upstream-health.ts';

export interface UpstreamDispatchDeps {
  readonly pools: UpstreamPools;
  readonly timeouts: UpstreamTimeouts;
  readonly health: UpstreamHealth;
  readonly retryBudget: RetryBudget;
  readonly inFlight: InFlight;
  readonly resilience: ResilienceConfig;
}

export type UpstreamRequest = Omit<UpstreamCall, 'dispatcher' | 'upstream' | 'timeouts'>;

export function sendToUpstreams(deps: UpstreamDispatchDeps, request: UpstreamRequest, upstreams: readonly UpstreamConfig[]): Promise<UpstreamOutcome> {
  const first = deps.health.pick(upstreams);
  if (first === null) return Promise.reject(unavailable(deps.health.msUntilRetry(upstreams)));
  deps.retryBudget.deposit();
  return new Promise((resolve, reject) => new UpstreamAttempts(deps, request, upstreams, resolve, reject).start(first));
}

/**
 * The attempts of one request, told by each exchange how it ended: one promise for the request,
 * not one per attempt and per layer. Each attempt is counted in flight and reported to the
 * upstream's health from its start to its end.
 */
class UpstreamAttempts implements ExchangeListener {
  readonly #deps: UpstreamDispatchDeps;
  readonly #request: UpstreamRequest;
  readonly #upstreams: readonly UpstreamConfig[];
  readonly #resolve: (outcome: UpstreamOutcome) => void;
  readonly #reject: (error: unknown) => void;
  #upstream: UpstreamConfig | null = null;
  #retried = false;

  constructor(deps: UpstreamDispatchDeps, request: UpstreamRequest, upstreams: readonly UpstreamConfig[], resolve: (outcome: UpstreamOutcome) => void, reject: (error: unknown) => void) {
    this.#deps = deps;
    this.#request = request;
    this.#upstreams = upstreams;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  start(upstream: UpstreamConfig): void {
    const { health, inFlight, pools, timeouts } = this.#deps;
    this.#upstream = upstream;
    health.begin(upstream);
    inFlight.begin(upstream);
    try {
      startExchange({ ...this.#request, upstream, dispatcher: pools.get(upstream.origin), timeouts }, this);
    } catch (error) {
      this.#ended('unknown');
      this.#reject(error);
    }
  }

  succeeded(outcome: UpstreamOutcome): void {
    this.#ended(outcome.failed ? 'failed' : this.#request.client.aborted ? 'unknown' : 'healthy');
    this.#resolve(outcome);
  }

  failed(error: UpstreamAttemptError): void {
    const first = this.#ended(error.verdict, error.retryAfterMs);
    if (this.#retried || !error.retryable || this.#request.client.aborted) return this.#reject(error.apiError);
    const { health, retryBudget, resilience } = this.#deps;
    // Another upstream if there is a healthy one; the same one again only after a failure that a
    // new connection may not repeat, and only if that failure did not just eject it.
    const second = health.pick(this.#upstreams, first) ?? (error.retrySame ? health.pick([first]) : null);
    if (second === null || !retryBudget.tryWithdraw()) return this.#reject(error.apiError);
    this.#retried = true;
    const pause = jittered(resilience.retry.backoffMs);
    if (pause <= 0) queueMicrotask(() => this.start(second));
    else setTimeout(() => this.start(second), pause);
  }

  /** Ends the attempt under way: out of flight, its verdict to the upstream's health. */
  #ended(verdict: Parameters<UpstreamHealth['end']>[1], retryAfterMs?: number): UpstreamConfig {
    const upstream = this.#upstream!;
    this.#deps.health.end(upstream, verdict, retryAfterMs);
    this.#deps.inFlight.end(upstream);
    return upstream;
  }
}

function unavailable(msUntilRetry: number): ApiError {
  return new ApiError('upstream_unavailable', { headers: retryAfterHeaders(clampSeconds(msUntilRetry / 1000)) });
}

/** Between half of `ms` and all of it, so that retries after a shared failure do not arrive together. */
function jittered(ms: number): number {
  return ms * (0.5 + Math.random() / 2);
}
