// Whether the limiter's Redis can be reached. Unreachable means the connection is not ready, or
// calls are waiting and nothing at all has answered for the silence limit: then the connection is
// dropped and reopened, which fails every call still waiting (they go to the local share) and keeps
// failing new ones until Redis answers a fresh connection's ready check. A Redis that answers
// slowly is reachable, and so is one whose replies the gateway's own busy event loop has not read
// yet: the caller checks for silence after the loop's poll phase (setImmediate), which reads them.
import type { Logger } from '../observability/logger.ts';
import type { RedisClient } from '../store/redis-connection.ts';

export class BackendHealth {
  readonly #client: RedisClient;
  readonly #logger: Logger | undefined;
  readonly #silenceMs: number;
  #errors = 0;
  #waiting = 0;
  #waitingSince = 0;
  #lastAnswerAt = performance.now();
  #down = false;

  constructor(client: RedisClient, silenceMs: number, logger?: Logger) {
    this.#client = client;
    this.#silenceMs = silenceMs;
    this.#logger = logger;
  }

  /** Failed calls so far (a metric). */
  get errors(): number {
    return this.#errors;
  }

  reachable(): boolean {
    if (this.#client.status === 'ready') return true;
    this.#markDown(`connection ${this.#client.status}`);
    return false;
  }

  sent(): void {
    if (this.#waiting++ === 0) this.#waitingSince = performance.now();
  }

  answered(): void {
    this.#waiting -= 1;
    this.#lastAnswerAt = performance.now();
    if (!this.#down) return;
    this.#down = false;
    this.#logger?.info('rate limiter: Redis answers again; shared limits resumed');
  }

  failed(error: unknown): void {
    this.#waiting -= 1;
    this.#errors += 1;
    this.#markDown(error instanceof Error ? error.message : String(error));
  }

  /** Calls are waiting and nothing at all has answered for the silence limit. */
  silent(): boolean {
    return this.#waiting > 0 && performance.now() - Math.max(this.#lastAnswerAt, this.#waitingSince) >= this.#silenceMs;
  }

  /** Drops the silent connection and reopens it: every call still waiting fails at once. */
  drop(): void {
    this.#markDown(`no answer for ${this.#silenceMs} ms`);
    this.#client.disconnect(true);
  }

  #markDown(reason: string): void {
    if (this.#down) return;
    this.#down = true;
    this.#logger?.warn({ reason }, 'rate limiter: Redis unreachable; limiting with this instance\'s share of each limit (or 503 where configured)');
  }
}
