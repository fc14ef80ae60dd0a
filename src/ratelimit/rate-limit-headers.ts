// OpenAI's rate-limit response headers, and the 429 that carries them.
import { ApiError } from '../errors/api-error.ts';
import type { LimitDecision } from './limiter.ts';

/** OpenAI's duration format: "12ms", "1s", "6m0s", "1h2m3s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  let seconds = Math.ceil(ms / 1000);
  const hours = Math.floor(seconds / 3600);
  seconds -= hours * 3600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

export function rateLimitHeaders(decision: LimitDecision): Record<string, string> {
  return {
    'x-ratelimit-limit-requests': String(decision.requestsLimit),
    'x-ratelimit-remaining-requests': String(decision.requestsRemaining),
    'x-ratelimit-reset-requests': formatDuration(decision.requestsResetMs),
    'x-ratelimit-limit-tokens': String(decision.tokensLimit),
    'x-ratelimit-remaining-tokens': String(decision.tokensRemaining),
    'x-ratelimit-reset-tokens': formatDuration(decision.tokensResetMs),
  };
}

/** SDKs ignore Retry-After above 60 s and fall back to ~1 s backoff, so the header is clamped. */
export function rateLimitError(decision: LimitDecision, reservedTokens: number): ApiError {
  const headers = rateLimitHeaders(decision);
  const limited = decision.limitedBy ?? { name: 'key_requests', limit: decision.requestsLimit };
  const whose = limited.name.startsWith('account_') ? "the account's" : "this key's";
  if (!Number.isFinite(decision.retryAfterMs)) {
    return new ApiError('rate_limit_exceeded', {
      message: `This request needs ${reservedTokens} tokens, more than ${whose} limit of ${limited.limit} tokens per minute. Reduce the input or max_tokens.`,
      headers: { ...headers, 'x-should-retry': 'false' },
    });
  }
  const seconds = Math.min(60, Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
  const what = limited.name === 'concurrency'
    ? `Too many concurrent requests for this key (limit ${limited.limit}).`
    : `Rate limit reached for ${limited.name.startsWith('account_') ? "this key's account" : 'this key'}.`;
  return new ApiError('rate_limit_exceeded', {
    message: `${what} Retry after ${seconds} s.`,
    headers: { ...headers, 'retry-after': String(seconds), 'retry-after-ms': String(Math.max(1, Math.ceil(decision.retryAfterMs))) },
  });
}

/** A subject configured to fail closed while the shared limiter cannot answer. */
export function limiterUnavailableError(): ApiError {
  return new ApiError('limiter_unavailable', { headers: { 'retry-after': '1', 'retry-after-ms': '1000' } });
}
