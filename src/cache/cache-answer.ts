// The response cache on a request's path: what it does for the request, and a hit's answer. A hit
// is the stored bytes with a fresh id and `created`, sent at once: a JSON body, or the whole stream
// in one write; the rate limiter counts it as one request with no tokens, and usage records it so.
import type { Principal } from '../auth/authenticator.ts';
import { admitCacheHit, resolveModel } from '../dispatch/admission.ts';
import type { CompletionServiceDeps } from '../dispatch/admitted-completion.ts';
import type { RequestContext } from '../http/request-context.ts';
import { send } from '../http/respond.ts';
import { ENDS_LATER } from '../http/router.ts';
import type { ModelCatalog } from '../models/model-catalog.ts';
import type { RateLimitState } from '../ratelimit/limiter.ts';
import { SseWriter } from '../streaming/sse-writer.ts';
import type { ChatRequest } from '../validation/chat-request.ts';
import { type CachedReply, replay } from './cached-reply.ts';
import { cacheDirective, type CacheLookup, type ResponseCache } from './response-cache.ts';

export const CACHE_HIT: Readonly<Record<string, string>> = Object.freeze({ 'x-munja-cache': 'hit' });
export const CACHE_MISS: Readonly<Record<string, string>> = Object.freeze({ 'x-munja-cache': 'miss' });
export const CACHE_BYPASS: Readonly<Record<string, string>> = Object.freeze({ 'x-munja-cache': 'bypass' });

/**
 * What the cache does for `request` (see ResponseCache.lookUp); null when nothing. The model is
 * resolved and checked against the key first, so a key never gets a reply for a model it may not use.
 */
export function lookUpCache(
  cache: ResponseCache, catalog: ModelCatalog, ctx: RequestContext, principal: Principal, request: ChatRequest, protocol: string, exact: string | null,
  keyBody?: Readonly<Record<string, unknown>> | null,
): CacheLookup | Promise<CacheLookup> | null {
  const directive = cacheDirective(ctx.cacheHeader);
  const resolved = resolveModel(catalog, principal, request.model);
  const model = catalog.describe(resolved.publicId);
  if (model === undefined) return null;
  return cache.lookUp(directive, principal, request, model, protocol, exact, keyBody);
}

/**
 * The key of the request's exact bytes when the cache may answer it by them (no header, or `on`,
 * and a key not barred from the cache), else null. The bytes of a request seen before are answered
 * from the cache without being parsed (ResponseCache.exactHit): they were validated when first seen.
 */
export function exactKeyOf(cache: ResponseCache, ctx: RequestContext, principal: Principal, bytes: Uint8Array | ArrayBuffer): string | null {
  const header = ctx.cacheHeader;
  const keyMode = principal.cache ?? '';
  return (header === '' || header === 'on') && keyMode !== 'off' ? cache.exactKey(principal.accountId, header, keyMode, bytes) : null;
}

/** Answers `ctx` with a cached reply, once the rate limiter has counted it; `headers`: CACHE_HIT and any the endpoint adds. */
export function answerFromCache(
  deps: CompletionServiceDeps, ctx: RequestContext, principal: Principal, reply: CachedReply, headers: Readonly<Record<string, string>> = CACHE_HIT,
): typeof ENDS_LATER | Promise<typeof ENDS_LATER> {
  const limits = admitCacheHit(deps, principal, ctx.model ?? '');
  return limits instanceof Promise ? limits.then((state) => sendReply(ctx, state, reply, headers)) : sendReply(ctx, limits, reply, headers);
}

function sendReply(ctx: RequestContext, limits: RateLimitState, reply: CachedReply, headers: Readonly<Record<string, string>>): typeof ENDS_LATER {
  ctx.rateLimits = limits;
  ctx.promptTokens = 0;
  const bytes = replay(reply);
  if (reply.form === 'json') send(ctx, 200, bytes, headers);
  else new SseWriter(ctx).end('', bytes, headers);
  ctx.end();
  return ENDS_LATER;
}
