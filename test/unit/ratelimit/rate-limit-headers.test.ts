// The 429 and its headers: Retry-After in whole seconds (ceil, 1–60), retry-after-ms, the
// x-ratelimit-* sextet, x-should-retry: false only where retrying cannot help; the fail-closed 503.
import { describe, expect, it } from 'vitest';
import type { LimitDecision } from '../../../src/ratelimit/limiter.ts';
import { limiterUnavailableError, rateLimitError, rateLimitHeaders } from '../../../src/ratelimit/rate-limit-headers.ts';

function denied(retryAfterMs: number, limitedBy: LimitDecision['limitedBy'] = { name: 'key_requests', limit: 60 }): LimitDecision {
  return {
    allowed: false,
    retryAfterMs,
    limitedBy,
    requestsLimit: 60,
    requestsRemaining: 0,
    requestsResetMs: 59_000,
    tokensLimit: 1000,
    tokensRemaining: 12,
    tokensResetMs: 1_500,
    lease: null,
    degraded: false,
  };
}

describe('rate-limit headers', () => {
  it('carries the limit, remaining and reset of both buckets', () => {
    expect(rateLimitHeaders(denied(1))).toEqual({
      'x-ratelimit-limit-requests': '60',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '59s',
      'x-ratelimit-limit-tokens': '1000',
      'x-ratelimit-remaining-tokens': '12',
      'x-ratelimit-reset-tokens': '2s',
    });
  });

  it('Retry-After is the wait rounded up to whole seconds, at least 1 and at most 60', () => {
    for (let i = 0; i < 1000; i += 1) {
      const ms = i < 500 ? Math.random() * 3_000 : Math.random() * 200_000;
      const { status, headers } = rateLimitError(denied(ms), 1);
      const seconds = Number(headers!['retry-after']);
      expect(status).toBe(429);
      expect(Number.isInteger(seconds)).toBe(true);
      expect(seconds).toBe(Math.min(60, Math.max(1, Math.ceil(ms / 1000))));
      expect(Number(headers!['retry-after-ms'])).toBe(Math.max(1, Math.ceil(ms)));
      expect(headers!['x-should-retry']).toBeUndefined();
    }
  });

  it('a request that can never fit says not to retry, and names whose limit', () => {
    const error = rateLimitError(denied(Infinity, { name: 'account_tokens', limit: 500 }), 800);
    expect(error.code).toBe('rate_limit_exceeded');
    expect(error.headers).toMatchObject({ 'x-should-retry': 'false' });
    expect(error.headers!['retry-after']).toBeUndefined();
    expect(error.message).toContain("the account's limit of 500 tokens");
  });

  it('says whether the key or its account ran out', () => {
    expect(rateLimitError(denied(2_500), 1).message).toBe('Rate limit reached for this key. Retry after 3 s.');
    expect(rateLimitError(denied(2_500, { name: 'account_tokens', limit: 9 }), 1).message).toBe("Rate limit reached for this key's account. Retry after 3 s.");
  });

  it('names the concurrency cap', () => {
    const error = rateLimitError(denied(1000, { name: 'concurrency', limit: 64 }), 1);
    expect(error.message).toMatch(/concurrent requests.*64.*Retry after 1 s/);
    expect(error.headers!['retry-after']).toBe('1');
  });

  it('fail closed is a 503 limiter_unavailable with Retry-After', () => {
    const error = limiterUnavailableError();
    expect(error).toMatchObject({ status: 503, code: 'limiter_unavailable', type: 'service_unavailable' });
    expect(error.headers).toMatchObject({ 'retry-after': '1' });
  });
});
