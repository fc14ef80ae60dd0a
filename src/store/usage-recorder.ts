// Per-request usage goes to memory and is written to the store once a second (and on shutdown),
// so the request path never waits on a write.
import type { Logger } from '../observability/logger.ts';
import type { Store, UsageDelta } from './store.ts';

const DAY_MS = 86_400_000;

interface Pending {
  keyId: string;
  day: string;
  model: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  costMicros: number;
}

/** A day's pending usage, per key, then per model. */
type DayBatch = Map<string, Map<string, Pending>>;

export class UsageRecorder {
  readonly #store: Store;
  readonly #logger: Logger;
  /** Per day, per key, per model: nested rather than keyed by "key|day|model", which built a string per request. */
  #pending = new Map<string, DayBatch>();
  #used = new Set<string>();
  readonly #timer: NodeJS.Timeout;
  #flushing: Promise<void> = Promise.resolve();

  constructor(store: Store, logger: Logger, intervalMs = 1000) {
    this.#store = store;
    this.#logger = logger;
    this.#timer = setInterval(() => { void this.flush(); }, intervalMs).unref();
  }

  /**
   * `model`: the model id the client asked for. `costMicros`: what it cost (0 without a price).
   * `requests`: how many requests the tokens are for (more than one when a failed write is merged back).
   */
  record(keyId: string, model: string, promptTokens: number, completionTokens: number, costMicros: number, now = Date.now(), requests = 1): void {
    const day = this.#dayOf(now);
    let ofDay = this.#pending.get(day);
    if (ofDay === undefined) this.#pending.set(day, (ofDay = new Map()));
    let ofKey = ofDay.get(keyId);
    if (ofKey === undefined) ofDay.set(keyId, (ofKey = new Map()));
    let pending = ofKey.get(model);
    if (pending === undefined) {
      pending = { keyId, day, model, requests: 0, promptTokens: 0, completionTokens: 0, costMicros: 0 };
      ofKey.set(model, pending);
    }
    pending.requests += requests;
    pending.promptTokens += promptTokens;
    pending.completionTokens += completionTokens;
    pending.costMicros += costMicros;
    this.#used.add(keyId);
  }

  // The UTC day, formatted once per day: toISOString() on every request cost ~0.9 µs, the cached
  // check ~0.05 µs (measured on 2M calls).
  #day = '';
  #dayStart = 0;

  #dayOf(now: number): string {
    if (now < this.#dayStart || now >= this.#dayStart + DAY_MS) {
      this.#dayStart = Math.floor(now / DAY_MS) * DAY_MS;
      this.#day = new Date(this.#dayStart).toISOString().slice(0, 10);
    }
    return this.#day;
  }

  /** Writes what is pending. Concurrent calls are serialised; a failed write is kept for the next one. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#write());
    return this.#flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }

  async #write(): Promise<void> {
    if (this.#pending.size === 0) return;
    const batch = this.#pending;
    const used = this.#used;
    this.#pending = new Map();
    this.#used = new Set();
    const deltas: UsageDelta[] = [];
    for (const ofDay of batch.values()) {
      for (const ofKey of ofDay.values()) deltas.push(...ofKey.values());
    }
    try {
      await this.#store.addUsage(deltas);
    } catch (error) {
      this.#logger.error({ err: error, pending: deltas.length }, 'usage write failed; kept for the next flush');
      this.#merge(batch);
      for (const keyId of used) this.#used.add(keyId);
      return;
    }
    try {
      await this.#store.markKeysUsed([...used], Date.now());
    } catch (error) {
      this.#logger.warn({ err: error }, 'last-used update failed');
    }
  }

  #merge(batch: Map<string, DayBatch>): void {
    for (const ofDay of batch.values()) {
      for (const ofKey of ofDay.values()) {
        for (const old of ofKey.values()) {
          this.record(old.keyId, old.model, old.promptTokens, old.completionTokens, old.costMicros, Date.parse(old.day), old.requests);
        }
      }
    }
  }
}
