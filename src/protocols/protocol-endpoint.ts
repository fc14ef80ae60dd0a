// One endpoint of another protocol (the Responses API, the Messages API) in front of the chat
// completion pipeline: its key, its body translated into a chat request, then the same admission,
// limits, dispatch, usage, logs, metrics and traces as /v1/chat/completions. Its reply and its
// stream are translated back (ProtocolTurn), and its errors take its own shape (errorFormat). The
// response cache keys a turn by its request as sent (ProtocolTurn.cacheKey) and keeps its reply in
// the protocol's own shape, as the client got it.
import type { Principal } from '../auth/authenticator.ts';
import { answerFromCache, CACHE_BYPASS, CACHE_HIT, CACHE_MISS, lookUpCache } from '../cache/cache-answer.ts';
import type { CacheLookup } from '../cache/response-cache.ts';
import { type ChatCompletionsDeps, left } from '../handlers/chat-completions.ts';
import { admitCompletion } from '../dispatch/admission.ts';
import type { AdmittedCompletion, CompletionAnswer } from '../dispatch/admitted-completion.ts';
import type { CompletionOutcome } from '../dispatch/dispatch.ts';
import { ApiError } from '../errors/api-error.ts';
import { BodyReader } from '../http/body-reader.ts';
import { isJsonContentType } from '../http/content-type.ts';
import type { ErrorFormat, RequestContext } from '../http/request-context.ts';
import { send } from '../http/respond.ts';
import { ENDS_LATER, type HandlerResult } from '../http/router.ts';
import type { StreamTranslator } from '../streaming/stream-translator.ts';
import type { NativeRequest } from '../upstream/native-request.ts';
import type { ChatRequest } from '../validation/chat-request.ts';
import type { JsonBody } from '../validation/json-body.ts';
import { parseJsonRequest } from '../validation/parse-json-body.ts';

export interface TurnUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/** What the response cache keys a turn by: its protocol, and its request as sent; null: never cached (`bypass`). */
export interface TurnCacheKey {
  readonly protocol: 'responses' | 'messages';
  readonly body: Readonly<Record<string, unknown>> | null;
}

/** One request of the protocol, as the chat request it runs as, and how its answer is made. */
export interface ProtocolTurn {
  readonly request: ChatRequest;
  /** How the response cache sees the turn; absent: the cache leaves it alone. */
  readonly cacheKey?: TurnCacheKey;
  /** More response headers (what was left out of the request, …). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /**
   * The request as the client sent it (nativeRequest()), for the upstreams that speak its API: they
   * get it untranslated, and their answer goes back as it is (neither reply() nor the stream
   * translator sees it). Absent: every upstream gets `request`.
   */
  readonly native?: NativeRequest;
  /** The protocol's JSON reply, from the chat completion (a chat.completion object). */
  reply(completion: Record<string, unknown>, usage: TurnUsage): string | Promise<string>;
  /** The translator of a streamed request's events, made once before dispatch. */
  streamTranslator(): StreamTranslator;
  /** An admission error (about the chat request) in the protocol's own terms. */
  refine?(error: unknown): unknown;
}

export interface ProtocolFront {
  /** The shape of this endpoint's error bodies; null: the API's own. */
  readonly errorFormat: ErrorFormat | null;
  /** The credential to authenticate, as an Authorization header value. */
  credential(ctx: RequestContext): string;
  /**
   * The body (parsed JSON; `source`: its text, for a native relay) → the turn; may wait (a stored
   * conversation to read). Throws ApiError on a bad body.
   */
  begin(body: unknown, principal: Principal, ctx: RequestContext, source: JsonBody): ProtocolTurn | Promise<ProtocolTurn>;
}

/**
 * As chatCompletions(): synchronous from the last body byte to the dispatch when nothing has to be
 * waited for (a cached key, a body already there, a turn that reads no store, a limiter that decides
 * at once); each wait there is, is a promise.
 */
export function protocolCompletion(front: ProtocolFront, deps: ChatCompletionsDeps, ctx: RequestContext): HandlerResult | Promise<HandlerResult> {
  ctx.errorFormat = front.errorFormat;
  // Made before anything is awaited: it takes the body as it arrives.
  const reader = new BodyReader(ctx, deps.config);
  ctx.trace?.enter('munja.auth');
  const credential = front.credential(ctx);
  const principal = deps.auth.cachedPrincipal(credential);
  if (principal === undefined) return deps.auth.authenticate(credential).then((found) => authenticated(front, deps, ctx, reader, found));
  return authenticated(front, deps, ctx, reader, principal);
}

function authenticated(front: ProtocolFront, deps: ChatCompletionsDeps, ctx: RequestContext, reader: BodyReader, principal: Principal): HandlerResult | Promise<HandlerResult> {
  ctx.trace?.leave();
  ctx.keyId = principal.keyId;
  if (!isJsonContentType(ctx.contentType)) throw new ApiError('invalid_content_type');
  const bytes = reader.readNow();
  if (bytes !== null) return begin(front, deps, ctx, principal, bytes);
  return reader.read().then((late) => begin(front, deps, ctx, principal, late));
}

function begin(front: ProtocolFront, deps: ChatCompletionsDeps, ctx: RequestContext, principal: Principal, bytes: Uint8Array): typeof ENDS_LATER | Promise<typeof ENDS_LATER> {
  const body = parseJsonRequest(bytes, { maxDepth: deps.config.maxJsonDepth });
  const turn = front.begin(body.value, principal, ctx, body);
  return turn instanceof Promise ? turn.then((ready) => admitTurn(deps, ctx, principal, ready)) : admitTurn(deps, ctx, principal, turn);
}

function admitTurn(deps: ChatCompletionsDeps, ctx: RequestContext, principal: Principal, turn: ProtocolTurn): typeof ENDS_LATER | Promise<typeof ENDS_LATER> {
  const { request } = turn;
  ctx.model = request.model;
  ctx.stream = request.stream;
  const { trace } = ctx;
  if (trace?.capturesContent) trace.recordInput(request.body.messages);
  const { cache } = deps;
  const { cacheKey } = turn;
  if (cache !== null && cacheKey !== undefined && (cache.anyModel || ctx.cacheHeader !== '' || principal.cache === 'on')) {
    let lookup: CacheLookup | Promise<CacheLookup> | null;
    try {
      lookup = lookUpCache(cache, deps.catalog, ctx, principal, request, cacheKey.protocol, null, cacheKey.body);
    } catch (error) {
      throw refined(turn, error);
    }
    if (lookup !== null) return lookup instanceof Promise ? lookup.then((found) => cached(deps, ctx, principal, turn, found)) : cached(deps, ctx, principal, turn, lookup);
  }
  return admitNow(deps, ctx, principal, turn);
}

/** A turn the cache looked at: a hit is answered from it, a miss or a bypass runs (a miss's reply is kept). */
function cached(deps: ChatCompletionsDeps, ctx: RequestContext, principal: Principal, turn: ProtocolTurn, lookup: CacheLookup): typeof ENDS_LATER | Promise<typeof ENDS_LATER> {
  // A hit says what the turn's own headers say (the tools left out of the offer, …).
  if (lookup.kind === 'hit') return answerFromCache(deps, ctx, principal, lookup.reply, turn.headers === undefined ? CACHE_HIT : { ...turn.headers, ...CACHE_HIT });
  ctx.cacheStatus = lookup.kind === 'miss' ? CACHE_MISS : CACHE_BYPASS;
  if (lookup.kind === 'miss') ctx.cacheFill = lookup.fill;
  try {
    const admitting = admitNow(deps, ctx, principal, turn);
    return admitting instanceof Promise ? admitting.catch((error: unknown) => abandonFill(ctx, error)) : admitting;
  } catch (error) {
    return abandonFill(ctx, error);
  }
}

/** An error about the chat request, in the protocol's own terms. */
function refined(turn: ProtocolTurn, error: unknown): unknown {
  return turn.refine === undefined ? error : turn.refine(error);
}

/** A miss refused before it ran: requests waiting for its reply go on their own. */
function abandonFill(ctx: RequestContext, error: unknown): never {
  ctx.cacheFill?.abandon();
  throw error;
}

function admitNow(deps: ChatCompletionsDeps, ctx: RequestContext, principal: Principal, turn: ProtocolTurn): typeof ENDS_LATER | Promise<typeof ENDS_LATER> {
  const { request } = turn;
  const { trace } = ctx;
  const refine = (error: unknown) => refined(turn, error);
  let admitted: AdmittedCompletion | Promise<AdmittedCompletion>;
  try {
    admitted = admitCompletion(deps, principal, request, trace);
  } catch (error) {
    throw refine(error);
  }
  if (admitted instanceof Promise) {
    return admitted.then((ready) => start(deps, ctx, turn, ready), (error: unknown) => {
      throw refine(error);
    });
  }
  return start(deps, ctx, turn, admitted);
}

function start(deps: ChatCompletionsDeps, ctx: RequestContext, turn: ProtocolTurn, admitted: AdmittedCompletion): typeof ENDS_LATER {
  const { request } = turn;
  ctx.promptTokens = admitted.promptTokens;
  ctx.rateLimits = admitted;
  if (turn.headers !== undefined) admitted.headers = { ...admitted.headers, ...turn.headers };
  if (ctx.cacheStatus !== null) admitted.headers = { ...admitted.headers, ...ctx.cacheStatus };
  if (turn.native !== undefined) admitted.native = turn.native;
  if (request.stream) {
    const translator = turn.streamTranslator();
    admitted.translator = translator;
    ctx.streamEnding = translator;
  }
  const { trace } = ctx;
  trace?.served(admitted.model.id);
  trace?.enter('munja.dispatch');
  admitted.start(deps, ctx, request.stream ? ctx : null, false, new ProtocolAnswer(turn));
  return ENDS_LATER;
}

/** A completion answered on its HTTP request in the protocol's shape (a stream writes its own). */
class ProtocolAnswer implements CompletionAnswer {
  readonly #turn: ProtocolTurn;

  constructor(turn: ProtocolTurn) {
    this.#turn = turn;
  }

  completed(run: AdmittedCompletion, outcome: CompletionOutcome, billedPromptTokens: number): void {
    const ctx = left(run);
    ctx.promptTokens = billedPromptTokens;
    ctx.completionTokens = outcome.completionTokens;
    ctx.cost = run.cost;
    const { body, nativeBody } = outcome;
    const headers = outcome.headers === undefined ? run.headers : { ...run.headers, ...outcome.headers };
    if (nativeBody != null) return sendReply(ctx, nativeBody, headers);
    if (body == null) {
      // Streamed, or the client left.
      ctx.cacheFill?.finishStream(ctx);
      return ctx.end();
    }
    if (ctx.trace?.capturesContent) ctx.trace.recordOutput(body.choices);
    let replying: string | Promise<string>;
    try {
      replying = this.#turn.reply(body, { promptTokens: billedPromptTokens, completionTokens: outcome.completionTokens });
    } catch (error) {
      return failed(ctx, error);
    }
    if (typeof replying === 'string') return sendReply(ctx, replying, headers);
    replying.then((reply) => sendReply(ctx, reply, headers), (error: unknown) => failed(ctx, error));
  }

  refused(run: AdmittedCompletion, error: unknown): void {
    const ctx = left(run);
    ctx.cacheFill?.abandon();
    // Nothing was served, so nothing is billed: the log line and the token metric agree with usage.
    ctx.promptTokens = 0;
    // An engine's refusal names what it refused in chat terms.
    const { refine } = this.#turn;
    ctx.end(refine === undefined ? error : refine(error));
  }
}

function sendReply(ctx: RequestContext, reply: string | Uint8Array, headers: Readonly<Record<string, string>>): void {
  send(ctx, 200, reply, headers);
  ctx.cacheFill?.finishJson(reply);
  ctx.end();
}

function failed(ctx: RequestContext, error: unknown): void {
  ctx.cacheFill?.abandon();
  ctx.end(error);
}
