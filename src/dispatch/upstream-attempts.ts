// A completion sent to one of a model's upstreams, with at most one more attempt: only when nothing
// has reached the client yet (a failed attempt rejects before the response starts), only for
// failures another attempt can fix, after a jittered pause, and within the retry budget. A request
// of another API goes to each upstream that speaks that API as it is, and to the others as its chat
// translation: either exchange ends in an outcome the request's answer reads.
import type { Dispatcher } from 'undici';
import type { ResilienceConfig, UpstreamConfig, UpstreamTarget, UpstreamTimeouts } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import { clampSeconds, retryAfterHeaders, type UpstreamAttemptError } from '../upstream/upstream-errors.ts';
import type { Abortable, RequestContext } from '../http/request-context.ts';
import { type ExchangeListener, startExchange, type UpstreamCall, type UpstreamOutcome } from '../upstream/upstream-exchange.ts';
import type { StreamTranslator } from '../streaming/stream-translator.ts';
import type { NativeRequest } from '../upstream/native-request.ts';
import type { UpstreamPools } from '../upstream/upstream-pools.ts';
import type { ChatRequestBody } from '../validation/chat-request.ts';
import type { JsonBody } from '../validation/json-body.ts';
import type { Completion, OutcomeListener } from './dispatch.ts';
import type { InFlight } from './in-flight.ts';
import type { RetryBudget } from './retry-budget.ts';
import type { UpstreamHealth } from './upstream-health.ts';
import { conversationKey, sharedPrefixHash, sharedPrefixTokens } from './conversation-key.ts';
import type { AdmissionQueue } from './admission-queue.ts';
import type { EngineChoice } from './engine-choice.ts';

export interface UpstreamDispatchDeps {
  readonly pools: UpstreamPools;
  readonly timeouts: UpstreamTimeouts;
  readonly health: UpstreamHealth;
  readonly retryBudget: RetryBudget;
  readonly inFlight: InFlight;
  readonly resilience: ResilienceConfig;
  /** Chooses among the upstreams of a model that declares engines (absent: by weight, as for any other). */
  readonly engines?: EngineChoice;
  /** Holds requests while their model's upstreams are all full (absent: no model is chosen by load). */
  readonly queue?: AdmissionQueue;
}

export function sendToUpstreams(deps: UpstreamDispatchDeps, completion: Completion, target: UpstreamTarget, listener: OutcomeListener): void {
  send(deps, completion, target, listener, true);
}

/** A request that waited in the admission queue, sent now that its model has room. */
export function sendQueued(deps: UpstreamDispatchDeps, completion: Completion, target: UpstreamTarget, listener: OutcomeListener): void {
  send(deps, completion, target, listener, false);
}

function send(deps: UpstreamDispatchDeps, completion: Completion, target: UpstreamTarget, listener: OutcomeListener, mayWait: boolean): void {
  const { upstreams } = target;
  // Only a model that declares engines pays for a conversation key and the saturation scores.
  const engines = target.engineAware === true ? deps.engines ?? null : null;
  const conversation = engines === null ? null : conversationKey(completion.request, completion.client.session);
  const first = engines === null ? deps.health.pick(upstreams) : engines.pick(upstreams, null, conversation, completion.promptTokens, sharedPrefixTokens(completion.request), sharedPrefixHash(completion.request));
  if (first === null) return listener.failed(unavailable(deps.health.msUntilRetry(upstreams)));
  // Every upstream full, or requests waiting already (a newcomer does not pass them): it waits its turn.
  const { queue } = deps;
  if (mayWait && engines !== null && queue !== undefined && (engines.full || queue.waiting > 0) && queue.hold(deps, completion, listener)) return;
  deps.retryBudget.deposit();
  new UpstreamAttempts(deps, completion, upstreams, engines, conversation, engines === null ? 0 : engines.weight, listener).start(first);
}

/**
 * The attempts of one request, told by each exchange how it ended, and the call each attempt makes
 * (its upstream changes on a retry): one object for the request, not one per attempt and per
 * layer. Each attempt is counted in flight and reported to the upstream's health from its start
 * to its end.
 */
class UpstreamAttempts implements UpstreamCall, ExchangeListener {
  // Set by start() for each attempt, before the exchange reads them.
  upstream!: UpstreamConfig;
  dispatcher!: Dispatcher;
  /** The completion's native request when this attempt's upstream speaks its API; else the chat request goes. */
  native: NativeRequest | null = null;
  // What the call passes on is read from the completion, not copied: fewer fields per request.
  readonly #completion: Completion;
  readonly #deps: UpstreamDispatchDeps;
  readonly #upstreams: readonly UpstreamConfig[];
  readonly #engines: EngineChoice | null;
  readonly #conversation: string | null;
  /** The prompt tokens the attempt's engine is estimated to prefill (engine-choice.ts); 0 without engines, and once its stream has started. */
  #weight = 0;
  readonly #listener: OutcomeListener;
  #retried = false;
  /** An attempt is under way: ended once, whether its exchange tells or dispatching it throws. */
  #attempting = false;

  constructor(deps: UpstreamDispatchDeps, completion: Completion, upstreams: readonly UpstreamConfig[], engines: EngineChoice | null, conversation: string | null, weight: number, listener: OutcomeListener) {
    this.#completion = completion;
    this.#deps = deps;
    this.#upstreams = upstreams;
    this.#engines = engines;
    this.#conversation = conversation;
    this.#weight = weight;
    this.#listener = listener;
  }

  get client(): Abortable {
    return this.#completion.client;
  }

  get streamTo(): RequestContext | null {
    return this.#completion.streamTo;
  }

  get translator(): StreamTranslator | null {
    return this.#completion.translator;
  }

  get publicModel(): string {
    return this.#completion.publicModel;
  }

  get body(): ChatRequestBody {
    return this.#completion.request.body;
  }

  get source(): JsonBody | null {
    return this.#completion.request.source;
  }

  get includeUsage(): boolean {
    return this.#completion.request.includeUsage;
  }

  get headers(): Readonly<Record<string, string>> {
    return this.#completion.headers;
  }

  get asBytes(): boolean {
    return this.#completion.asBytes;
  }

  get cachedInputPriced(): boolean {
    const { price } = this.#completion.model;
    return price != null && price.cachedInput !== price.input;
  }

  get timeouts(): UpstreamTimeouts {
    return this.#deps.timeouts;
  }

  start(upstream: UpstreamConfig): void {
    const { health, inFlight, pools } = this.#deps;
    this.upstream = upstream;
    const { native } = this.#completion;
    this.native = native !== null && upstream.api.includes(native.api) ? native : null;
    health.begin(upstream);
    inFlight.begin(upstream);
    this.#engines?.began(upstream, this.#weight);
    this.#attempting = true;
    try {
      this.dispatcher = pools.get(upstream.origin);
      startExchange(this, this);
    } catch (error) {
      // Thrown after the exchange ended, it came from the listener, which was told already: the
      // attempt is not ended twice.
      if (!this.#attempting) return;
      this.#ended('unknown');
      this.#listener.failed(error);
    }
  }

  /** Its engine has prefilled the prompt: that load is off the engine's count now, not at the reply's end. */
  streamStarted(): void {
    if (this.#engines === null || this.#weight === 0) return;
    this.#engines.prefilled(this.upstream, this.#weight);
    this.#weight = 0;
  }

  succeeded(outcome: UpstreamOutcome): void {
    this.#ended(outcome.failed ? 'failed' : this.client.aborted ? 'unknown' : 'healthy');
    this.#listener.succeeded(outcome);
  }

  failed(error: UpstreamAttemptError): void {
    const first = this.#ended(error.verdict, error.retryAfterMs);
    if (this.#retried || !error.retryable || this.client.aborted) return this.#listener.failed(error.apiError);
    const { health, retryBudget, resilience } = this.#deps;
    // Another upstream if there is a healthy one; the same one again only after a failure that a
    // new connection may not repeat, and only if that failure did not just eject it.
    const other = this.#engines === null ? health.pick(this.#upstreams, first) : this.#engines.pick(this.#upstreams, first, this.#conversation, this.#completion.promptTokens, sharedPrefixTokens(this.#completion.request), sharedPrefixHash(this.#completion.request));
    const second = other ?? (error.retrySame ? health.pick([first]) : null);
    // The retry's engine is estimated to prefill what its pick said (all of it on the same one again: it failed there).
    if (this.#engines !== null) this.#weight = other === null ? this.#completion.promptTokens : this.#engines.weight;
    if (second === null || !retryBudget.tryWithdraw()) return this.#listener.failed(error.apiError);
    this.#retried = true;
    const pause = jittered(resilience.retry.backoffMs);
    if (pause <= 0) queueMicrotask(() => this.start(second));
    else setTimeout(() => this.start(second), pause);
  }

  /** Ends the attempt under way: out of flight, its verdict to the upstream's health. */
  #ended(verdict: Parameters<UpstreamHealth['end']>[1], retryAfterMs?: number): UpstreamConfig {
    const { upstream } = this;
    this.#attempting = false;
    this.#deps.health.end(upstream, verdict, retryAfterMs);
    this.#deps.inFlight.end(upstream);
    this.#engines?.ended(upstream, this.#weight);
    const { queue } = this.#deps;
    if (queue !== undefined && queue.waiting > 0) queue.capacityFreed();
    return upstream;
  }
}

function unavailable(msUntilRetry: number): ApiError {
  return new ApiError('upstream_unavailable', { headers: retryAfterHeaders(clampSeconds(msUntilRetry / 1000)) });
}

/** Between half of `ms` and all of it, so that retries after a shared failure do not arrive together. */
function jittered(ms: number): number {
  return ms * (0.5 + Math.random() / 2);
}
