// Admission of a chat completion, for any front end: the model and the key's scope, what the model
// supports, max_tokens and the context, then the rate limiter. What it admits runs as an
// AdmittedCompletion (admitted-completion.ts).
import type { Principal } from '../auth/authenticator.ts';
import type { BudgetGate } from '../budget/budget-gate.ts';
import type { ModelConfig } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import type { RequestTrace } from '../observability/request-trace.ts';
import type { ModelCatalog, ResolvedModel } from '../models/model-catalog.ts';
import type { Lease, LimitDecision, RateLimitState } from '../ratelimit/limiter.ts';
import { rateLimitError } from '../ratelimit/rate-limit-headers.ts';
import { estimatePromptTokens, MAX_CHARS_PER_TOKEN } from '../tokens/estimate-tokens.ts';
import { promptTextLength } from '../tokens/token-pool.ts';
import type { ChatRequest } from '../validation/chat-request.ts';
import { AdmittedCompletion, type CompletionServiceDeps } from './admitted-completion.ts';
import { checkSupport } from './structured-support.ts';

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
    if (model.target.kind !== 'local') {
      fitted(admitted, admitted.promptTokens);
      if (deps.budgets == null) return admitted;
      const reserving = withinBudget(deps.budgets, admitted);
      return reserving instanceof Promise ? reserving.catch((error: unknown) => refused(deps, lease, error)) : reserving;
    }
    return deps.dispatch.engine.countPromptTokens(request.messages)
      .then((promptTokens) => {
        fitted(admitted, promptTokens);
        return deps.budgets == null ? admitted : withinBudget(deps.budgets, admitted);
      })
      .catch((error: unknown) => refused(deps, lease, error));
  } catch (error) {
    return refused(deps, lease, error);
  }
}

/**
 * Reserves the request's worst case on its budgets (the prompt, and n × max_tokens at the output
 * price) or throws 429 `budget_exceeded`; after the rate limit, so a request refused there costs
 * no call to the ledger.
 */
function withinBudget(budgets: BudgetGate, admitted: AdmittedCompletion): AdmittedCompletion | Promise<AdmittedCompletion> {
  const reserved = budgets.reserve(admitted.principal, admitted.model, admitted.promptTokens, admitted.request.n * admitted.maxTokens);
  if (reserved === null) return admitted;
  if (!(reserved instanceof Promise)) {
    admitted.budgetHold = reserved;
    return admitted;
  }
  return reserved.then((hold) => {
    admitted.budgetHold = hold;
    return admitted;
  });
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
 * settled at once and its usage recorded as a request of `model` (the id asked for) with no tokens
 * and no cost. Returns the limiter's numbers for the x-ratelimit-* headers.
 */
export function admitCacheHit(deps: CompletionServiceDeps, principal: Principal, model: string): RateLimitState | Promise<RateLimitState> {
  const decided = deps.limiter.tryAcquire(principal, 0);
  if (decided !== null) return settledHit(deps, principal, model, decided);
  return deps.limiter.acquire(principal, 0).then((decision) => settledHit(deps, principal, model, decision));
}

function settledHit(deps: CompletionServiceDeps, principal: Principal, model: string, decision: LimitDecision): RateLimitState {
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
  deps.usage.record(principal.keyId, model, 0, 0, 0);
  return state;
}
