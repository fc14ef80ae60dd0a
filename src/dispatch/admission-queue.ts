// The admission queue: a request for a model whose healthy upstreams are all full (engine-choice.ts,
// isFull) waits here, already admitted (its rate-limit lease and budget held), instead of being
// refused at once. Per model, requests leave by band and, within a band, by account in turn
// (fair-queue.ts); a newcomer never passes a request already waiting. Each time an upstream attempt
// ends or an engine is polled, the heads are sent while their model has room. A request waits at
// most `timeoutMs`, and at most `maxWaiting` wait in this process; past either, or when its client
// leaves, it is withdrawn unsent. Each process keeps its own queue (workers and instances do not share one).
import type { ModelConfig, PriorityConfig, QueueConfig } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import { retryAfterHeaders } from '../upstream/upstream-errors.ts';
import type { Completion, OutcomeListener } from './dispatch.ts';
import type { EngineChoice } from './engine-choice.ts';
import { BANDS, FairQueue, type Waiting } from './fair-queue.ts';
import { bandOf } from './queue-priority.ts';
import { sendQueued, type UpstreamDispatchDeps } from './upstream-attempts.ts';

const RETRY_AFTER = retryAfterHeaders(1);

/** One waiting request. */
class Held implements Waiting {
  readonly accountId: string;
  readonly band: number;
  readonly deps: UpstreamDispatchDeps;
  readonly completion: Completion;
  readonly listener: OutcomeListener;
  readonly since = performance.now();
  timer: NodeJS.Timeout | null = null;

  constructor(band: number, deps: UpstreamDispatchDeps, completion: Completion, listener: OutcomeListener) {
    this.accountId = completion.principal.accountId;
    this.band = band;
    this.deps = deps;
    this.completion = completion;
    this.listener = listener;
  }
}

export class AdmissionQueue {
  readonly #settings: QueueConfig;
  readonly #priority: PriorityConfig;
  readonly #engines: EngineChoice;
  /** Per served model: its upstreams are its target's. */
  readonly #models = new Map<ModelConfig, FairQueue<Held>>();
  #waiting = 0;
  #drainScheduled = false;
  readonly #drain = this.#sendHeads.bind(this);

  constructor(settings: QueueConfig, priority: PriorityConfig, engines: EngineChoice) {
    this.#settings = settings;
    this.#priority = priority;
    this.#engines = engines;
  }

  /** Requests waiting, all models together. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Requests waiting per model id (for the metrics). */
  stats(): Record<string, number> {
    const byModel: Record<string, number> = {};
    for (const [model, waiting] of this.#models) byModel[model.id] = waiting.size;
    return byModel;
  }

  /**
   * Takes the request if it must wait: its model's upstreams are all full (the last pick said so) or
   * others wait for the model already; false if it may go now. Taken, it is sent later, or withdrawn.
   */
  hold(deps: UpstreamDispatchDeps, completion: Completion, listener: OutcomeListener): boolean {
    const { model, client } = completion;
    let waiting = this.#models.get(model);
    if (!this.#engines.full && (waiting === undefined || waiting.size === 0)) return false;
    if (client.aborted) {
      listener.withdrawn(new ApiError('client_closed', { message: 'The client closed the connection before its request was sent.' }));
      return true;
    }
    if (this.#waiting >= this.#settings.maxWaiting) {
      listener.withdrawn(new ApiError('overloaded', {
        message: `The model "${model.id}" is saturated and ${this.#waiting} requests already wait on this instance, the most that may. Retry shortly.`,
        headers: RETRY_AFTER,
      }));
      return true;
    }
    if (waiting === undefined) {
      waiting = new FairQueue<Held>();
      this.#models.set(model, waiting);
    }
    const held = new Held(bandOf(completion.principal, this.#priority), deps, completion, listener);
    waiting.push(held);
    this.#waiting++;
    held.timer = setTimeout(() => this.#expire(held), this.#settings.timeoutMs);
    held.timer.unref();
    client.onAbort = () => this.#left(held);
    // Room may have come while the others waited, with no attempt ending to say so.
    if (!this.#engines.full) this.capacityFreed();
    return true;
  }

  /** An upstream may have room: the heads are sent, on the next microtask (not inside the caller's own work). */
  capacityFreed(): void {
    if (this.#drainScheduled || this.#waiting === 0) return;
    this.#drainScheduled = true;
    queueMicrotask(this.#drain);
  }

  /** One head of each model with room in turn, until none has room or waiters: models sharing an engine share its room. */
  #sendHeads(): void {
    this.#drainScheduled = false;
    let sent = true;
    while (sent && this.#waiting > 0) {
      sent = false;
      for (const [model, waiting] of this.#models) {
        const { target } = model;
        if (waiting.size === 0 || target.kind !== 'upstreams' || this.#engines.allFull(target.upstreams)) continue;
        const next = waiting.shift()!;
        this.#out(next, 'admitted');
        sendQueued(next.deps, next.completion, target, next.listener);
        sent = true;
      }
    }
  }

  #expire(held: Held): void {
    if (!this.#models.get(held.completion.model)!.remove(held)) return;
    this.#withdraw(held, new ApiError('overloaded', {
      message: `The model "${held.completion.model.id}" stayed saturated for the ${this.#settings.timeoutMs} ms a request may wait. Retry shortly.`,
      headers: RETRY_AFTER,
    }), 'refused');
  }

  #left(held: Held): void {
    if (!this.#models.get(held.completion.model)!.remove(held)) return;
    this.#withdraw(held, new ApiError('client_closed', { message: 'The client closed the connection while its request waited.' }), 'left');
  }

  #withdraw(held: Held, error: ApiError, outcome: 'refused' | 'left'): void {
    this.#out(held, outcome);
    held.listener.withdrawn(error);
  }

  /** Out of the queue: its timer stopped, its client's abort no longer ours, its wait told to the request's log line, metrics and trace. */
  #out(held: Held, outcome: 'admitted' | 'refused' | 'left'): void {
    this.#waiting--;
    if (held.timer !== null) clearTimeout(held.timer);
    const { client } = held.completion;
    client.onAbort = null;
    const waitedMs = performance.now() - held.since;
    client.queuedMs = waitedMs;
    client.queuePriority = BANDS[held.band]!;
    client.trace?.queued(waitedMs, BANDS[held.band]!, outcome);
  }
}
