// An admitted chat completion and its run, for any front end (HTTP, MCP, the other protocols): what
// is dispatched, then settlement of the rate-limit lease and usage, exactly once, and the answer.
// Admission (the model, the key's scope, max_tokens, the limiter) is admission.ts's.
import type { Principal } from '../auth/authenticator.ts';
import type { BudgetGate } from '../budget/budget-gate.ts';
import type { BudgetHold } from '../budget/budget-ledger.ts';
import { costMicros } from '../budget/price.ts';
import type { ModelConfig } from '../config/config-types.ts';
import type { Abortable, RequestContext } from '../http/request-context.ts';
import type { ModelCatalog } from '../models/model-catalog.ts';
import type { RouteChoice } from '../models/route-choice.ts';
import type { Lease, LimitDecision, Limiter, RateLimitState } from '../ratelimit/limiter.ts';
import type { UsageRecorder } from '../store/usage-recorder.ts';
import type { StreamTranslator } from '../streaming/stream-translator.ts';
import type { NativeRequest } from '../upstream/native-request.ts';
import type { ChatRequest } from '../validation/chat-request.ts';
import { type Completion, type CompletionOutcome, type DispatchDeps, dispatchCompletion, type OutcomeListener } from './dispatch.ts';
import type { KeyInFlight } from './key-in-flight.ts';

export interface CompletionServiceDeps {
  readonly catalog: ModelCatalog;
  readonly routes: RouteChoice;
  readonly keyInFlight: KeyInFlight;
  readonly limiter: Limiter;
  readonly dispatch: DispatchDeps;
  readonly usage: UsageRecorder;
  /** Null (or absent) while no budget is configured: the request path never looks. */
  readonly budgets?: BudgetGate | null;
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
  /** The budget reservation, when a budget and a price apply; set on admission. */
  budgetHold: BudgetHold | null = null;
  /** What the request cost in micro-units of the currency, once settled. */
  cost = 0;
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
  /** Set by a protocol endpoint for a stream: the chat events are translated into its protocol's. */
  translator: StreamTranslator | null = null;
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
    this.#settle(billedPrompt, outcome.completionTokens, outcome.cachedPromptTokens ?? 0, true);
    // A stream cut short is billed for what it delivered. Usage is counted under the model asked for.
    this.#deps!.usage.record(this.principal.keyId, this.publicModel, billedPrompt, outcome.completionTokens, this.cost);
    this.#answer!.completed(this, outcome, billedPrompt);
  }

  /**
   * Nothing reached the client: no usage is recorded (usage is what was served, and a client that
   * retries a 5xx must not pay twice), but the limiter still counts the request and its prompt.
   */
  failed(error: unknown): void {
    if (this.#settled) return;
    this.#settle(this.promptTokens, 0, 0, false);
    this.#answer!.refused(this, error);
  }

  /**
   * It left the admission queue unsent (refused, or its client left): the limiter counts the
   * request but none of its tokens, and its budget reservation is released in full.
   */
  withdrawn(error: unknown): void {
    if (this.#settled) return;
    this.#settle(0, 0, 0, false);
    this.#answer!.refused(this, error);
  }

  /** `served`: the client got a reply (in full or cut short) and pays for it; else it pays nothing. */
  #settle(promptTokens: number, completionTokens: number, cachedPromptTokens: number, served: boolean): void {
    this.#settled = true;
    const deps = this.#deps!;
    const { keyId } = this.principal;
    void deps.limiter.settle(this.lease!, promptTokens + completionTokens);
    if (served && this.model.price != null) this.cost = costMicros(this.model.price, promptTokens, completionTokens, cachedPromptTokens);
    if (this.budgetHold !== null) deps.budgets!.settle(this.budgetHold, this.cost);
    deps.keyInFlight.leave(keyId);
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
