// Whether the limiter may ask Redis now. After a failed call, decisions stay local for a moment, so
// a slow or black-holed Redis costs one deadline per interval rather than one per request. Logs
// each change (not each error). A connection that has answered nothing for seconds while calls
// time out is dropped and reopened: that empties the client's queue of commands still awaiting a
// reply, so a black hole cannot make it grow. (Timeouts with answers in between are the gateway's
// own event-loop lag, which a reconnect would not cure.)
import type { Logger } from '../observability/logger.ts';
import type { RedisClient } from '../store/redis-connection.ts';

const RETRY_AFTER_FAILURE_MS = 250;
const SILENCE_BEFORE_RECONNECT_MS = 2_000;

export class BackendHealth {
  readonly #client: RedisClient;
  readonly #logger: Logger | undefined;
  #errors = 0;
  #retryAt = 0;
  #down = false;
  #lastAnswerAt = performance.now();
  #lastReconnectAt = performance.now();

  constructor(client: RedisClient, logger?: Logger) {
    this.#client = client;
    this.#logger = logger;
  }

  /** Failed calls so far (a metric). */
  get errors(): number {
    return this.#errors;
  }

  /** Connected: worth a call that nobody waits for (settlement, renewal). */
  connected(): boolean {
    return this.#client.status === 'ready';
  }

  /** Worth a call a request waits for: connected and not failed a moment ago. */
  usable(): boolean {
    if (this.#client.status !== 'ready') {
      this.#markDown(`connection ${this.#client.status}`);
      return false;
    }
    return performance.now() >= this.#retryAt;
  }

  succeeded(): void {
    this.#lastAnswerAt = performance.now();
    if (!this.#down) return;
    this.#down = false;
    this.#logger?.info('rate limiter: Redis answers again; shared limits resumed');
  }

  failed(error: unknown): void {
    const now = performance.now();
    this.#errors += 1;
    this.#retryAt = now + RETRY_AFTER_FAILURE_MS;
    const message = error instanceof Error ? error.message : String(error);
    this.#markDown(message);
    const silent = now - Math.max(this.#lastAnswerAt, this.#lastReconnectAt) >= SILENCE_BEFORE_RECONNECT_MS;
    if (message === 'Command timed out' && silent) {
      this.#lastReconnectAt = now;
      this.#client.disconnect(true);
    }
  }

  #markDown(reason: string): void {
    if (this.#down) return;
    this.#down = true;
    this.#logger?.warn({ reason }, 'rate limiter: Redis unavailable; limiting with the local share of each limit (or 503 where configured)');
  }
}
