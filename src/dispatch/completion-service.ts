// A chat completion from a validated request, for any front end (HTTP, MCP): the model and the
// key's scope, max_tokens and the context, the rate limiter, dispatch, then settlement and usage.
import type { Principal } from '../auth/authenticator.ts';
import type { ModelConfig } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Abortable, RequestContext } from '../http/request-context.ts';
import type { RequestTrace } from '../observability/request-trace.ts';
import type { ModelCatalog, ResolvedModel } from '../models/model-catalog.ts';
import type { RouteChoice } from '../models/route-choice.ts';
import type { Lease, LimitDecision, Limiter, RateLimitState } from '../ratelimit/limiter.ts';
import { rateLimitError } from '../ratelimit/rate-limit-headers.ts';
import type { UsageRecorder } from '../store/usage-recorder.ts';
import type { NativeRequest } from '../upstream/native-request.ts';
import { estimatePromptTokens, MAX_CHARS_PER_TOKEN } from '../tokens/estimate-tokens.ts';
import { promptTextLength } from '../tokens/token-pool.ts';
import type { ChatRequest } from '../validation/chat-request.ts';
import { type Completion, type CompletionOutcome, type DispatchDeps, dispatchCompletion, type OutcomeListener } from './dispatch.ts';
import type { KeyInFlight } from './key-in-flight.ts';
import { checkSupport } from './structured-support.ts';

export interface CompletionServiceDeps {
  readonly catalog: ModelCatalog;
  readonly routes: RouteChoice;
  readonly keyInFlight: KeyInFlight;
  readonly limiter: Limiter;
  readonly dispatch: DispatchDeps;
  readonly usage: UsageRecorder;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
/** A run's client until it starts. */
const NOT_STARTED: Abortable = Object.freeze({ requestId: '', aborted: false, onAbort: null });

/** How a front end answers a run's end: told once, after settlement. */
export interface CompletionAnswer {
  /** `billedPromptTokens`: the target's prompt count when it gave one, else ours. */
  completed(run: AdmittedCompletion, outcome: CompletionOutcome, billedPromptTokens: number): void;
  refused(run: AdmittedCompletion, error: unknown): void;
}

/**
 * A request that passed every check and holds a rate-limit lease (a slot and a token reservation),
 * then its run: what is dispatched, and told how it ended. It settles the lease and records usage
 * exactly once (completion, error or abort), then tells its answer. One object for the request,
 * from what admission works out to the end, rather than one per step or a promise per layer.
 */
export class AdmittedCompletion implements Completion, OutcomeListener, RateLimitState {
  readonly principal: Principal;
  readonly request: ChatRequest;
  readonly publicModel: string;
  /** The model that serves it (a route's choice, or the model asked for). */
  readonly model: ModelConfig;
  /** The character estimate until admitted; then the local engine's count for its models. */
  promptTokens: number;
  /** max_tokens for the engine (the client's, or what the context leaves); set on admission. */
  maxTokens = 0;
  /** Set on admission. */
  lease: Lease | null = null;
  // What the limiter said, for the response's x-ratelimit-* headers; set on admission. Without an
  // initial value, a number too large for a small integer is kept as the limiter's own.
  requestsLimit!: number;
  requestsRemaining!: number;
  requestsResetMs!: number;
  tokensLimit!: number;
  tokensRemaining!: number;
  tokensResetMs!: number;
  /** More headers for the response: the served model, for a route. */
  headers: Readonly<Record<string, string>> = NO_HEADERS;
  client: Abortable = NOT_STARTED;
  streamTo: RequestContext | null = null;
  asBytes = false;
  /** Set by a protocol endpoint whose request an upstream may take as it is. */
  native: NativeRequest | null = null;
  /** performance.now() at dispatch. */
  dispatchedAt = 0;
  #deps: CompletionServiceDeps | null = null;
  #answer: CompletionAnswer | null = null;
  #settled = false;

  constructor(principal: Principal, request: ChatRequest, publicModel: string, model: ModelConfig, estimatedTokens: number) {
    this.principal = principal;
    this.request = request;
    this.publicModel = publicModel;
    this.model = model;
    this.promptTokens = estimatedTokens;
  }

  /** Holds the lease, and keeps the limiter's numbers (its decision may be reused). */
  held(lease: Lease, decision: LimitDecision): void {
    this.lease = lease;
    this.requestsLimit = decision.requestsLimit;
    this.requestsRemaining = decision.requestsRemaining;
    this.requestsResetMs = decision.requestsResetMs;
    this.tokensLimit = decision.tokensLimit;
    this.tokensRemaining = decision.tokensRemaining;
    this.tokensResetMs = decision.tokensResetMs;
  }

  /**
   * Dispatches to `client` (and a stream to `streamTo`); `answer` hears the end. `asBytes`: a
   * relayed JSON completion may come back as bytes ready to send.
   */
  start(deps: CompletionServiceDeps, client: Abortable, streamTo: RequestContext | null, asBytes: boolean, answer: CompletionAnswer): void {
    this.#deps = deps;
    this.client = client;
    this.streamTo = streamTo;
    this.asBytes = asBytes;
    this.#answer = answer;
    this.dispatchedAt = performance.now();
    try {
      dispatchCompletion(deps.dispatch, this, this);
    } catch (error) {
      this.failed(error);
    }
  }

  succeeded(outcome: CompletionOutcome): void {
    if (this.#settled) return;
    const billedPrompt = outcome.promptTokens ?? this.promptTokens;
    this.#settle(billedPrompt, outcome.completionTokens);
    // A stream cut short is billed for what it delivered.
    this.#deps!.usage.record(this.principal.keyId, billedPrompt, outcome.completionTokens);
    this.#answer!.completed(this, outcome, billedPrompt);
  }

  /**
   * Nothing reached the client: no usage is recorded (usage is what was served, and a client that
   * retries a 5xx must not pay twice), but the limiter still counts the request and its prompt.
   */
  failed(error: unknown): void {
    if (this.#settled) return;
    this.#settle(this.promptTokens, 0);
    this.#answer!.refused(this, error);
  }

  #settle(promptTokens: number, completionTokens: number): void {
    this.#settled = true;
    const deps = this.#deps!;
    const { keyId } = this.principal;
    void deps.limiter.settle(this.lease!, promptTokens + completionTokens);
    deps.keyInFlight.leave(keyId);
  }
}

/**
 * Admits a request; the caller must then start it (AdmittedCompletion.start, or runCompletion),
 * which releases what admission holds.
 * Synchronous when nothing has to be waited for (the limiter decides at once, the target is an
 * upstream), so that a request goes from its body to its dispatch within one turn; else a promise.
 * `trace`: the request's spans, which get the limiter's decision as a phase.
 */
export function admitCompletion(deps: CompletionServiceDeps, principal: Principal, request: ChatRequest, trace: RequestTrace | null = null): AdmittedCompletion | Promise<AdmittedCompletion> {
  deps.keyInFlight.enter(principal.keyId);
  try {
    const admitted = admit(deps, principal, request, trace);
    return admitted instanceof Promise ? admitted.catch((error: unknown) => leave(deps, principal, error)) : admitted;
  } catch (error) {
    return leave(deps, principal, error);
  }
}

function leave(deps: CompletionServiceDeps, principal: Principal, error: unknown): never {
  deps.keyInFlight.leave(principal.keyId);
  throw error;
}

/**
 * Cheap checks first: the model, max_tokens, then the rate limit with a reservation sized from
 * the character estimate, and only then what costs (tokenizing a prompt for the local engine). A
 * request refused after admission — its prompt over the context — has used its request: the lease
 * is settled with no tokens, so the refusal counts against the rate as any request does.
 */
function admit(deps: CompletionServiceDeps, principal: Principal, request: ChatRequest, trace: RequestTrace | null): AdmittedCompletion | Promise<AdmittedCompletion> {
  const resolved = resolveModel(deps.catalog, principal, request.model);
  const model = deps.routes.serve(resolved);
  // Before the limiter: a request the model cannot honour takes no slot and is not billed.
  if (request.structured !== null) checkSupport(request.structured, model);
  const maxTokens = checkMaxTokens(request, model);
  // A prompt over the context is refused below, not as a token-limit 429: the reservation counts
  // at most the context.
  const estimatedTokens = estimatePromptTokens(request.messages);
  const estimated = Math.min(estimatedTokens, model.contextTokens);
  const estimatedBudget = Math.max(1, model.contextTokens - estimated);
  const reservedTokens = estimated + request.n * (maxTokens ?? Math.min(model.defaultMaxTokens, estimatedBudget));
  const admitted = new AdmittedCompletion(principal, request, resolved.publicId, model, estimatedTokens);
  trace?.enter('munja.rate_limit');
  const decided = deps.limiter.tryAcquire(principal, reservedTokens);
  if (decided !== null) return afterDecision(deps, admitted, decided, reservedTokens, trace);
  return deps.limiter.acquire(principal, reservedTokens).then((decision) => afterDecision(deps, admitted, decision, reservedTokens, trace));
}

function afterDecision(deps: CompletionServiceDeps, admitted: AdmittedCompletion, decision: LimitDecision, reservedTokens: number, trace: RequestTrace | null): AdmittedCompletion | Promise<AdmittedCompletion> {
  trace?.leave({ 'munja.rate_limit.allowed': decision.allowed, 'munja.rate_limit.reserved_tokens': reservedTokens });
  const { lease } = decision;
  if (!decision.allowed || lease === null) throw rateLimitError(decision, reservedTokens);
  admitted.held(lease, decision);
  const { request, model } = admitted;
  try {
    checkPromptLength(request, model);
    if (model.target.kind !== 'local') return fitted(admitted, admitted.promptTokens);
    return deps.dispatch.engine.countPromptTokens(request.messages)
      .then((promptTokens) => fitted(admitted, promptTokens))
      .catch((error: unknown) => refused(deps, lease, error));
  } catch (error) {
    return refused(deps, lease, error);
  }
}

/** A request refused after admission: its lease is settled with no tokens. */
function refused(deps: CompletionServiceDeps, lease: Lease, error: unknown): never {
  void deps.limiter.settle(lease, 0);
  throw error;
}

/**
 * The admitted request, once its prompt's tokens are known; throws `context_length_exceeded`. The
 * local engine's context is checked with its own tokenizer's count; an upstream checks its own
 * context, so the estimate serves (it may overshoot: the budget only sizes the reply).
 */
function fitted(admitted: AdmittedCompletion, promptTokens: number): AdmittedCompletion {
  const { request, model } = admitted;
  const maxTokens = request.maxTokens;
  const budget = model.target.kind === 'local' ? model.contextTokens - promptTokens : Math.max(1, model.contextTokens - promptTokens);
  if (budget < (maxTokens ?? 1)) {
    throw new ApiError('context_length_exceeded', {
      param: 'messages',
      message: `This model's context is ${model.contextTokens} tokens; the messages use ${promptTokens}${maxTokens ? ` and max_tokens asks for ${maxTokens}` : ''}.`,
    });
  }
  admitted.promptTokens = promptTokens;
  admitted.maxTokens = maxTokens ?? Math.min(model.maxOutputTokens, budget);
  if (admitted.publicModel !== model.id) admitted.headers = { 'x-munja-served-model': model.id };
  return admitted;
}

/** A prompt so long by its characters alone that it cannot fit: refused before any tokenizing. */
function checkPromptLength(request: ChatRequest, model: ModelConfig): void {
  const length = promptTextLength(request.messages);
  if (length > model.contextTokens * MAX_CHARS_PER_TOKEN) {
    throw new ApiError('context_length_exceeded', {
      param: 'messages',
      message: `This model's context is ${model.contextTokens} tokens; the messages are far longer (${length} characters).`,
    });
  }
}

export interface CompletionResult extends CompletionOutcome {
  /** What was billed: the target's prompt count when it gave one, else ours. */
  readonly billedPromptTokens: number;
}

/** A run's end as a promise (MCP): the result, or the failure. */
class PromisedAnswer implements CompletionAnswer {
  readonly #resolve: (result: CompletionResult) => void;
  readonly #reject: (error: unknown) => void;

  constructor(resolve: (result: CompletionResult) => void, reject: (error: unknown) => void) {
    this.#resolve = resolve;
    this.#reject = reject;
  }

  completed(_run: AdmittedCompletion, outcome: CompletionOutcome, billedPromptTokens: number): void {
    this.#resolve({ ...outcome, billedPromptTokens });
  }

  refused(_run: AdmittedCompletion, error: unknown): void {
    this.#reject(error);
  }
}

/**
 * Runs an admitted completion and always settles its lease (completion, error or abort) and records
 * usage. `asBytes`: a relayed JSON completion may come back as bytes ready to send.
 */
export function runCompletion(
  deps: CompletionServiceDeps,
  admitted: AdmittedCompletion,
  client: Abortable,
  streamTo: RequestContext | null,
  asBytes = false,
): Promise<CompletionResult> {
  return new Promise((resolve, reject) => admitted.start(deps, client, streamTo, asBytes, new PromisedAnswer(resolve, reject)));
}

/** The model a key asks for: 404 `model_not_found`, or 403 `model_not_allowed` outside the key's models. */
export function resolveModel(catalog: ModelCatalog, principal: Principal, id: string): ResolvedModel {
  const resolved = catalog.resolve(id);
  if (resolved === undefined) {
    throw new ApiError('model_not_found', { param: 'model', message: `The model "${id.slice(0, 128)}" does not exist. GET /v1/models lists the available ones.` });
  }
  if (principal.models !== null && !principal.models.has(id)) {
    throw new ApiError('model_not_allowed', { param: 'model', message: `This key may not use the model "${id}".` });
  }
  return resolved;
}

function checkMaxTokens(request: ChatRequest, model: ModelConfig): number | null {
  const { maxTokens } = request;
  if (maxTokens !== null && maxTokens > model.maxOutputTokens) {
    throw new ApiError('invalid_value', {
      param: request.maxTokensParam,
      message: `${request.maxTokensParam} must be at most ${model.maxOutputTokens} for the model "${model.id}".`,
    });
  }
  return maxTokens;
}

/**
 * A request answered from the response cache: the model must be one the key may use, and the
 * rate limiter counts it as one request with no tokens (the documented policy). Its lease is
 * settled at once and its usage recorded as a request with no tokens. Returns the limiter's numbers
 * for the x-ratelimit-* headers.
 */
export function admitCacheHit(deps: CompletionServiceDeps, principal: Principal): RateLimitState | Promise<RateLimitState> {
  const decided = deps.limiter.tryAcquire(principal, 0);
  if (decided !== null) return settledHit(deps, principal, decided);
  return deps.limiter.acquire(principal, 0).then((decision) => settledHit(deps, principal, decision));
}

function settledHit(deps: CompletionServiceDeps, principal: Principal, decision: LimitDecision): RateLimitState {
  const { lease } = decision;
  if (!decision.allowed || lease === null) throw rateLimitError(decision, 0);
  // Copied: the limiter may answer its next call with the same object.
  const state: RateLimitState = {
    requestsLimit: decision.requestsLimit,
    requestsRemaining: decision.requestsRemaining,
    requestsResetMs: decision.requestsResetMs,
    tokensLimit: decision.tokensLimit,
    tokensRemaining: decision.tokensRemaining,
    tokensResetMs: decision.tokensResetMs,
  };
  void deps.limiter.settle(lease, 0);
  deps.usage.record(principal.keyId, 0, 0);
  return state;
}
