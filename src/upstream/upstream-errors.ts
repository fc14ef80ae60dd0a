// What the client hears when an upstream fails before the response started. The client's own
// key is never blamed for the upstream's credentials, and Retry-After stays within what SDKs honour.
import { ApiError } from '../errors/api-error.ts';

/** How a failed attempt bears on the upstream's health (see dispatch/upstream-health.ts). */
export type AttemptVerdict = 'healthy' | 'failed' | 'rate-limited';

/**
 * An attempt that failed before any byte reached the client: what the client would hear, whether
 * another attempt may help, and what it says about the upstream.
 */
export class UpstreamAttemptError extends Error {
  override name = 'UpstreamAttemptError';
  readonly apiError: ApiError;
  /** Another attempt on another upstream could succeed. */
  readonly retryable: boolean;
  /** …and so could one on this upstream, over a new connection (a reset keep-alive socket, a 502/503). */
  readonly retrySame: boolean;
  readonly verdict: AttemptVerdict;
  /** For 'rate-limited': how long the upstream asked us to wait. */
  readonly retryAfterMs: number;

  constructor(apiError: ApiError, retryable: boolean, verdict: AttemptVerdict, options: { retrySame?: boolean; retryAfterMs?: number } = {}) {
    // Expected outcomes, not bugs: no stack trace (as in ApiError).
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(apiError.message);
    Error.stackTraceLimit = stackTraceLimit;
    this.apiError = apiError;
    this.retryable = retryable;
    this.retrySame = retryable && options.retrySame === true;
    this.verdict = verdict;
    this.retryAfterMs = options.retryAfterMs ?? 0;
  }
}

// A connection that could not be made or died before the response began: nothing was generated, so
// a second attempt costs the model server nothing. A timeout waiting for headers already spent the
// client's patience on this request, and is not retried.
export function transportFailure(error: unknown): UpstreamAttemptError {
  const code = (error as { code?: string } | null)?.code;
  const retryable = code !== 'UND_ERR_HEADERS_TIMEOUT' && code !== 'UND_ERR_BODY_TIMEOUT';
  return new UpstreamAttemptError(transportError(error), retryable, 'failed', { retrySame: true });
}

// 5xx and credential problems are the upstream's, and another upstream may not share them; 429 says
// this upstream is busy; other 4xx are about the request itself and would fail anywhere.
export function statusFailure(status: number, body: string, retryAfter: string | undefined): UpstreamAttemptError {
  const apiError = statusError(status, body, retryAfter);
  if (status === 429) return new UpstreamAttemptError(apiError, true, 'rate-limited', { retryAfterMs: clampRetryAfter(retryAfter) * 1000 });
  if (status >= 500 || status === 401 || status === 403) return new UpstreamAttemptError(apiError, true, 'failed', { retrySame: status === 502 || status === 503 });
  return new UpstreamAttemptError(apiError, false, 'healthy');
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export function isTimeout(error: unknown): boolean {
  return TIMEOUT_CODES.has((error as { code?: string } | null)?.code ?? '');
}

/** A transport failure (refused, reset, timed out) before any byte reached the client. */
export function transportError(error: unknown): ApiError {
  if (isTimeout(error)) return new ApiError('upstream_timeout');
  const code = (error as { code?: string } | null)?.code;
  return new ApiError('upstream_error', { message: `The model server could not be reached${code ? ` (${code})` : ''}.` });
}

/** An upstream answer with a non-2xx status. `body` is what it sent (bounded), for its message. */
export function statusError(status: number, body: string, retryAfter: string | undefined): ApiError {
  if (status === 401 || status === 403) return new ApiError('upstream_unauthorized');
  if (status === 429) {
    return new ApiError('upstream_rate_limited', { headers: retryAfterHeaders(clampRetryAfter(retryAfter)) });
  }
  if (status === 400 || status === 422) {
    const message = upstreamMessage(body);
    return new ApiError('upstream_bad_request', message ? { message: `The model server rejected the request: ${message}` } : {});
  }
  return new ApiError('upstream_error', { message: `The model server answered ${status}.` });
}

/** Seconds from a Retry-After value (seconds or an HTTP date), clamped to 1–60. */
export function clampRetryAfter(value: string | undefined, now = Date.now()): number {
  if (value === undefined) return 1;
  let seconds = Number(value);
  if (!Number.isFinite(seconds)) {
    const date = Date.parse(value);
    seconds = Number.isNaN(date) ? 1 : (date - now) / 1000;
  }
  return clampSeconds(seconds);
}

/** Whole seconds, 1–60: what SDKs honour. */
export function clampSeconds(seconds: number): number {
  return Math.min(60, Math.max(1, Math.ceil(seconds)));
}

/** Retry-After and the OpenAI SDKs' retry-after-ms, for a wait already clamped. */
export function retryAfterHeaders(seconds: number): Record<string, string> {
  return { 'retry-after': String(seconds), 'retry-after-ms': String(seconds * 1000) };
}

function upstreamMessage(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof parsed.error === 'object' ? parsed.error?.message : parsed.error ?? parsed.message;
    return typeof message === 'string' ? message.slice(0, 1000) : null;
  } catch {
    return null;
  }
}
