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

/** A request that passed every check and holds a rate-limit lease (a slot and a token reservation). */
export interface AdmittedCompletion {
  readonly principal: Principal;
  readonly request: ChatRequest;
  readonly resolved: ResolvedModel;
  /** The model that serves it (a route's choice, or the model asked for). */
  readonly served: ModelConfig;
  readonly promptTokens: number;
  readonly reservedTokens: number;
  readonly lease: Lease;
  readonly maxTokens: number;
  /** What the limiter said, for the response's x-ratelimit-* headers. */
  readonly rateLimits: RateLimitState;
  /** More headers for the response: the served model, for a route. */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Admits a request; the caller must then run it (a CompletionRun, or runCompletion, releases what
 * admission holds).
 * Synchronous when nothing has to be waited for (the limiter decides at once, the target is an
 * upstream), so that a request goes from its body to its dispatch within one turn; else a promise.
 * `trace`: the request's spans, which get the limiter's decision as a phase.
 */
export function admitCompletion(deps: CompletionServiceDeps, principal: Principal, request: ChatRequest, trace: RequestTrace | null = null): AdmittedCompletion | Promise<AdmittedCompletion> {
  deps.keyInFlight.enter(principal.keyId);
  const leave = (error: unknown): never => {
    deps.keyInFlight.leave(principal.keyId);
    throw error;
  };
  try {
    const admitted = admit(deps, principal, request, trace);
    return admitted instanceof Promise ? admitted.catch(leave) : admitted;
  } catch (error) {
    return leave(error);
  }
}

/** What admission has worked out before the limiter's decision. */
interface Asking {
  readonly principal: Principal;
  readonly request: ChatRequest;
  readonly resolved: ResolvedModel;
  readonly model: ModelConfig;
  readonly maxTokens: number | null;
  /** The prompt's tokens estimated from its characters (what an upstream's budget is sized by). */
  readonly estimatedTokens: number;
  readonly reservedTokens: number;
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
  const asking: Asking = { principal, request, resolved, model, maxTokens, estimatedTokens, reservedTokens };
  trace?.enter('munja.rate_limit');
  const decided = deps.limiter.tryAcquire(principal, reservedTokens);
  if (decided !== null) return afterDecision(deps, asking, decided, trace);
  return deps.limiter.acquire(principal, reservedTokens).then((decision) => afterDecision(deps, asking, decision, trace));
}

function afterDecision(deps: CompletionServiceDeps, asking: Asking, decision: LimitDecision, trace: RequestTrace | null): AdmittedCompletion | Promise<AdmittedCompletion> {
  const { reservedTokens, model } = asking;
  trace?.leave({ 'munja.rate_limit.allowed': decision.allowed, 'munja.rate_limit.reserved_tokens': reservedTokens });
  if (!decision.allowed || decision.lease === null) throw rateLimitError(decision, reservedTokens);
  const { lease } = decision;
  const refused = (error: unknown): never => {
    void deps.limiter.settle(lease, 0);
    throw error;
  };
  try {
    checkPromptLength(asking.request, model);
    if (model.target.kind !== 'local') return admitted(asking, decision, lease, asking.estimatedTokens);
    return deps.dispatch.engine.countPromptTokens(asking.request.messages)
      .then((promptTokens) => admitted(asking, decision, lease, promptTokens))
      .catch(refused);
  } catch (error) {
    return refused(error);
  }
}

/**
 * The admitted request, once its prompt's tokens are known; throws `context_length_exceeded`. The
 * local engine's context is checked with its own tokenizer's count; an upstream checks its own
 * context, so the estimate serves (it may overshoot: the budget only sizes the reply).
 */
function admitted(asking: Asking, decision: LimitDecision, lease: Lease, promptTokens: number): AdmittedCompletion {
  const { principal, request, resolved, model, maxTokens, reservedTokens } = asking;
  const budget = model.target.kind === 'local' ? model.contextTokens - promptTokens : Math.max(1, model.contextTokens - promptTokens);
  if (budget < (maxTokens ?? 1)) {
    throw new ApiError('context_length_exceeded', {
      param: 'messages',
      message: `This model's context is ${model.contextTokens} tokens; the messages use ${promptTokens}${maxTokens ? ` and max_tokens asks for ${maxTokens}` : ''}.`,
    });
  }
  const headers = resolved.publicId === model.id ? NO_HEADERS : { 'x-munja-served-model': model.id };
  return { principal, request, resolved, served: model, promptTokens, reservedTokens, lease, maxTokens: maxTokens ?? Math.min(model.maxOutputTokens, budget), rateLimits: decision, headers };
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

/**
 * One admitted completion under way: what is dispatched, and told how it ended. It settles the
 * lease and records usage exactly once (completion, error or abort), then tells its subclass. One
 * object for the request, rather than a promise at every layer between the handler and undici.
 */
export abstract class CompletionRun implements Completion, OutcomeListener {
  readonly client: Abortable;
  readonly streamTo: RequestContext | null;
  readonly request: ChatRequest;
  readonly publicModel: string;
  readonly model: ModelConfig;
  readonly maxTokens: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly asBytes: boolean;
  readonly #deps: CompletionServiceDeps;
  readonly #admitted: AdmittedCompletion;
  #settled = false;

  /** `asBytes`: a relayed JSON completion may come back as bytes ready to send. */
  constructor(deps: CompletionServiceDeps, admitted: AdmittedCompletion, client: Abortable, streamTo: RequestContext | null, asBytes: boolean) {
    this.#deps = deps;
    this.#admitted = admitted;
    this.client = client;
    this.streamTo = streamTo;
    this.request = admitted.request;
    this.publicModel = admitted.resolved.publicId;
    this.model = admitted.served;
    this.maxTokens = admitted.maxTokens;
    this.headers = admitted.headers;
    this.asBytes = asBytes;
  }

  /** Dispatches; the subclass hears the end through `completed` or `refused`. */
  start(): void {
    try {
      dispatchCompletion(this.#deps.dispatch, this, this);
    } catch (error) {
      this.failed(error);
    }
  }

  /** The outcome, after settlement; `billedPromptTokens`: the target's prompt count, else ours. */
  protected abstract completed(outcome: CompletionOutcome, billedPromptTokens: number): void;
  /** The failure, after settlement. */
  protected abstract refused(error: unknown): void;

  succeeded(outcome: CompletionOutcome): void {
    if (this.#settled) return;
    const billedPrompt = outcome.promptTokens ?? this.#admitted.promptTokens;
    this.#settle(billedPrompt, outcome.completionTokens);
    this.completed(outcome, billedPrompt);
  }

  failed(error: unknown): void {
    if (this.#settled) return;
    this.#settle(this.#admitted.promptTokens, 0);
    this.refused(error);
  }

  #settle(promptTokens: number, completionTokens: number): void {
    this.#settled = true;
    const deps = this.#deps;
    const { keyId } = this.#admitted.principal;
    void deps.limiter.settle(this.#admitted.lease, promptTokens + completionTokens);
    deps.keyInFlight.leave(keyId);
    deps.usage.record(keyId, promptTokens, completionTokens);
  }
}

/** A completion run as a promise (MCP): the result, or the failure. */
class PromisedRun extends CompletionRun {
  #resolve: (result: CompletionResult) => void = noop;
  #reject: (error: unknown) => void = noop;

  run(): Promise<CompletionResult> {
    return new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
      this.start();
    });
  }

  protected completed(outcome: CompletionOutcome, billedPromptTokens: number): void {
    this.#resolve({ ...outcome, billedPromptTokens });
  }

  protected refused(error: unknown): void {
    this.#reject(error);
  }
}

const noop = (): void => {};

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
  return new PromisedRun(deps, admitted, client, streamTo, asBytes).run();
}

function resolveModel(catalog: ModelCatalog, principal: Principal, id: string): ResolvedModel {
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
