// A completion sent to one of a model's upstreams, with at most one more attempt: only when nothing
// has reached the client yet (a failed attempt rejects before the response starts), only for
// failures another attempt can fix, after a jittered pause, and within the retry budget.
import type { ResilienceConfig, UpstreamConfig, UpstreamTimeouts } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import { clampSeconds, retryAfterHeaders, UpstreamAttemptError } from '../upstream/upstream-errors.ts';
import { callUpstream, type UpstreamCall, type UpstreamOutcome } from '../upstream/upstream-exchange.ts';
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

export async function sendToUpstreams(deps: UpstreamDispatchDeps, request: UpstreamRequest, upstreams: readonly UpstreamConfig[]): Promise<UpstreamOutcome> {
  const { health, retryBudget } = deps;
  const first = health.pick(upstreams);
  if (first === null) throw unavailable(health.msUntilRetry(upstreams));
  retryBudget.deposit();
  try {
    return await attempt(deps, request, first);
  } catch (error) {
    if (!(error instanceof UpstreamAttemptError)) throw error;
    if (!error.retryable || request.client.aborted) throw error.apiError;
    // Another upstream if there is a healthy one; the same one again only after a failure that a
    // new connection may not repeat, and only if that failure did not just eject it.
    const second = health.pick(upstreams, first) ?? (error.retrySame ? health.pick([first]) : null);
    if (second === null || !retryBudget.tryWithdraw()) throw error.apiError;
    await sleep(jittered(deps.resilience.retry.backoffMs));
    try {
      return await attempt(deps, request, second);
    } catch (retryError) {
      throw retryError instanceof UpstreamAttemptError ? retryError.apiError : retryError;
    }
  }
}

async function attempt(deps: UpstreamDispatchDeps, request: UpstreamRequest, upstream: UpstreamConfig): Promise<UpstreamOutcome> {
  const { health, inFlight } = deps;
  health.begin(upstream);
  inFlight.begin(upstream);
  try {
    const outcome = await callUpstream({ ...request, upstream, dispatcher: deps.pools.get(upstream.origin), timeouts: deps.timeouts });
    health.end(upstream, outcome.failed ? 'failed' : request.client.aborted ? 'unknown' : 'healthy');
    return outcome;
  } catch (error) {
    if (error instanceof UpstreamAttemptError) health.end(upstream, error.verdict, error.retryAfterMs);
    else health.end(upstream, 'unknown');
    throw error;
  } finally {
    inFlight.end(upstream);
  }
}

function unavailable(msUntilRetry: number): ApiError {
  return new ApiError('upstream_unavailable', { headers: retryAfterHeaders(clampSeconds(msUntilRetry / 1000)) });
}

/** Between half of `ms` and all of it, so that retries after a shared failure do not arrive together. */
function jittered(ms: number): number {
  return ms * (0.5 + Math.random() / 2);
}

function sleep(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}
