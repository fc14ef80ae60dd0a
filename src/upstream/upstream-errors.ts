// What the client hears when an upstream fails before the response started. The client's own
// key is never blamed for the upstream's credentials, and Retry-After stays within what SDKs honour.
import { ApiError } from '../errors/api-error.ts';

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
    const seconds = clampRetryAfter(retryAfter);
    return new ApiError('upstream_rate_limited', { headers: { 'retry-after': String(seconds), 'retry-after-ms': String(seconds * 1000) } });
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
  return Math.min(60, Math.max(1, Math.ceil(seconds)));
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
