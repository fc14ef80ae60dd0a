// POST /v1/chat/completions: key → content type → body → JSON and validation → the completion
// service. The key comes first: a request without a valid one is refused before its body is read.
import type { Authenticator, Principal } from '../auth/authenticator.ts';
import type { Config } from '../config/config-types.ts';
import type { CacheLookup, ExactHit, ResponseCache } from '../cache/response-cache.ts';
import { answerFromCache, CACHE_BYPASS, CACHE_MISS, exactKeyOf, lookUpCache } from '../cache/cache-answer.ts';
import { admitCompletion } from '../dispatch/admission.ts';
import type { AdmittedCompletion, CompletionAnswer, CompletionServiceDeps } from '../dispatch/admitted-completion.ts';
import type { CompletionOutcome } from '../dispatch/dispatch.ts';
import { ApiError } from '../errors/api-error.ts';
import { isJsonContentType } from '../http/content-type.ts';
import { type Body, type BodyConsumer, BodyReader } from '../http/body-reader.ts';
import type { RequestContext } from '../http/request-context.ts';
import { send } from '../http/respond.ts';
import { ENDS_LATER, type HandlerResult } from '../http/router.ts';
import type { ChatRequest } from '../validation/chat-request.ts';
import type { JsonBody } from '../validation/json-body.ts';
import { parseJsonRequest } from '../validation/parse-json-body.ts';
import { validateChatRequest } from '../validation/validate-chat-request.ts';

export interface ChatCompletionsDeps extends CompletionServiceDeps {
  readonly config: Config;
  readonly auth: Authenticator;
  /** The response cache; null when it is off (cache.maxBytes 0). */
  readonly cache: ResponseCache | null;
}

/**
 * Synchronous from the last body byte to the upstream dispatch when nothing has to be waited for
 * (the key's lookup is cached, the limiter decides at once): no promise, no turn of the event loop.
 * The body is read through a callback, since it usually arrives just after this returns. Each
 * other wait, where there is one, is a promise.
 */
export function chatCompletions(deps: ChatCompletionsDeps, ctx: RequestContext): HandlerResult | Promise<HandlerResult> {
  const reader = new BodyReader(ctx, deps.config);
  ctx.trace?.enter('munja.auth');
  const principal = deps.auth.cachedPrincipal(ctx.authorization);
  if (principal === undefined) return deps.auth.authenticate(ctx.authorization).then((found) => authenticated(deps, ctx, reader, found));
  return authenticated(deps, ctx, reader, principal);
}

function authenticated(deps: ChatCompletionsDeps, ctx: RequestContext, reader: BodyReader, principal: Principal): HandlerResult | Promise<HandlerResult> {
  ctx.trace?.leave();
  ctx.keyId = principal.keyId;
  if (!isJsonContentType(ctx.contentType)) throw new ApiError('invalid_content_type');
  const body = reader.readNow();
  if (body !== null) return admit(deps, ctx, principal, body);
  reader.readThen(new LateAdmission(deps, ctx, principal));
  return ENDS_LATER;
}

/** admit() for a body that arrives after the handler returned: the request ends through ctx.end(). */
class LateAdmission implements BodyConsumer {
  readonly #deps: ChatCompletionsDeps;
  readonly #ctx: RequestContext;
  readonly #principal: Principal;

  constructor(deps: ChatCompletionsDeps, ctx: RequestContext, principal: Principal) {
    this.#deps = deps;
    this.#ctx = ctx;
    this.#principal = principal;
  }

  bodyRead(bytes: Body): void {
    const ctx = this.#ctx;
    try {
      const admitting = admit(this.#deps, ctx, this.#principal, bytes);
      if (admitting !== ENDS_LATER) admitting.then(undefined, (error: unknown) => ctx.end(error));
    } catch (error) {
      ctx.end(error);
    }
  }

  bodyFailed(error: unknown): void {
    this.#ctx.end(error);
  }
}

/**
 * Parses, validates and admits the request. The bytes are only decoded, never kept: they may be lent
 * by uWS (BodyReader.readThen), and the frames that await the completion do not hold them.
 */
function admit(deps: ChatCompletionsDeps, ctx: RequestContext, principal: Principal, bytes: Body): typeof ENDS_LATER | Promise<typeof ENDS_LATER> {
  // Without a model that caches, the request's header or a key set `on`, the cache costs one check.
  const { cache } = deps;
  const exact = cache !== null && (cache.anyModel || ctx.cacheHeader !== '' || principal.cache === 'on') ? exactKeyOf(cache, ctx, principal, bytes) : null;
  if (exact !== null) {
    const hit = cache!.exactHit(exact, principal);
    if (hit instanceof Promise) {
      // The bytes may be lent by uWS: parsed now, before waiting for the store.
      const body = parseJsonRequest(bytes, { maxDepth: deps.config.maxJsonDepth });
      return hit.then((found) => (found === undefined ? admitParsed(deps, ctx, principal, body, exact) : answerExact(deps, ctx, principal, found)));
    }
    if (hit !== undefined) return answerExact(deps, ctx, principal, hit);
  }
  return admitParsed(deps, ctx, principal, parseJsonRequest(bytes, { maxDepth: deps.config.maxJsonDepth }), exact);
}

function answerExact(deps: ChatCompletionsDeps, ctx: RequestContext, principal: Principal, hit: ExactHit): typeof ENDS_LATER | Promise<typeof ENDS_LATER> {
  ctx.model = hit.model;
  ctx.stream = hit.stream;
  return answerFromCache(deps, ctx, principal, hit.reply);
}

function admitParsed(deps: ChatCompletionsDeps, ctx: RequestContext, principal: Principal, body: JsonBody, exact: string | null): typeof ENDS_LATER | Promise<typeof ENDS_LATER> {
  const { cache } = deps;
  const request = validateChatRequest(body.value, body);
  ctx.model = request.model;
  ctx.stream = request.stream;
  const { trace } = ctx;
  if (trace?.capturesContent) trace.recordInput(request.body.messages);
  if (cache !== null && (cache.anyModel || ctx.cacheHeader !== '' || principal.cache === 'on')) {
    const lookup = lookUpCache(cache, deps.catalog, ctx, principal, request, 'chat', exact);
    if (lookup !== null) return lookup instanceof Promise ? lookup.then((found) => cached(deps, ctx, principal, request, found)) : cached(deps, ctx, principal, request, lookup);
  }
  const admitted = admitCompletion(deps, principal, request, trace);
  return admitted instanceof Promise ? admitted.then((ready) => complete(deps, ctx, ready, null)) : complete(deps, ctx, admitted, null);
}

/** A request the cache looked at: a hit is answered from it, a miss or a bypass runs (a miss's reply is kept). */
function cached(deps: ChatCompletionsDeps, ctx: RequestContext, principal: Principal, request: ChatRequest, lookup: CacheLookup): typeof ENDS_LATER | Promise<typeof ENDS_LATER> {
  if (lookup.kind === 'hit') return answerFromCache(deps, ctx, principal, lookup.reply);
  const status = lookup.kind === 'miss' ? CACHE_MISS : CACHE_BYPASS;
  ctx.cacheStatus = status;
  if (lookup.kind === 'miss') ctx.cacheFill = lookup.fill;
  try {
    const admitted = admitCompletion(deps, principal, request, ctx.trace);
    if (!(admitted instanceof Promise)) return complete(deps, ctx, admitted, status);
    return admitted.then((ready) => complete(deps, ctx, ready, status), (error: unknown) => abandonFill(ctx, error));
  } catch (error) {
    return abandonFill(ctx, error);
  }
}

/** A miss refused before it ran: requests waiting for its reply go on their own. */
function abandonFill(ctx: RequestContext, error: unknown): never {
  ctx.cacheFill?.abandon();
  throw error;
}

function complete(deps: ChatCompletionsDeps, ctx: RequestContext, admitted: AdmittedCompletion, cacheStatus: Readonly<Record<string, string>> | null): typeof ENDS_LATER {
  if (cacheStatus !== null) admitted.headers = { ...admitted.headers, ...cacheStatus };
  ctx.promptTokens = admitted.promptTokens;
  ctx.rateLimits = admitted;
  const { trace } = ctx;
  trace?.served(admitted.model.id);
  trace?.enter('munja.dispatch');
  // Bytes unless the completion's content is recorded in its trace.
  admitted.start(deps, ctx, admitted.request.stream ? ctx : null, trace?.capturesContent !== true, HTTP_ANSWER);
  return ENDS_LATER;
}

/** A completion answered on its HTTP request (its client): the JSON reply (a stream writes its own), then the request's end. */
const HTTP_ANSWER: CompletionAnswer = {
  completed(run: AdmittedCompletion, outcome: CompletionOutcome, billedPromptTokens: number): void {
    const ctx = left(run);
    ctx.promptTokens = billedPromptTokens;
    ctx.completionTokens = outcome.completionTokens;
    ctx.cost = run.cost;
    try {
      const { body, bytes } = outcome;
      if (ctx.trace?.capturesContent && body != null) ctx.trace.recordOutput(body.choices);
      if (bytes != null || body != null) {
        const headers = isEmpty(outcome.headers) ? run.headers : { ...run.headers, ...outcome.headers };
        const reply = bytes ?? JSON.stringify(body);
        send(ctx, 200, reply, headers);
        ctx.cacheFill?.finishJson(reply);
      } else {
        ctx.cacheFill?.finishStream(ctx);
      }
    } catch (error) {
      ctx.cacheFill?.abandon();
      return ctx.end(error);
    }
    ctx.end();
  },

  refused(run: AdmittedCompletion, error: unknown): void {
    const ctx = left(run);
    ctx.cacheFill?.abandon();
    // Nothing was served, so nothing is billed: the log line and the token metric agree with usage.
    ctx.promptTokens = 0;
    ctx.end(error);
  },
};

/** The run's request, told the time spent on the target (the gateway-overhead metric is the total time minus it). */
export function left(run: AdmittedCompletion): RequestContext {
  const ctx = run.client as RequestContext;
  ctx.targetMs = performance.now() - run.dispatchedAt;
  ctx.trace?.leave();
  return ctx;
}

function isEmpty(headers: Readonly<Record<string, string>> | undefined): boolean {
  for (const _name in headers) return false;
  return true;
}
