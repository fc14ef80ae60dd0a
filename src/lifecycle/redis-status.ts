// Whether the shared store's Redis answers, for /readyz: a probe every second (each bounded by the
// client's command deadline), a PING or a read that has its own use (the key-secret check). It
// turns "down" only after no probe has succeeded for a while, so one slow answer or a reconnect
// blip does not flap the probe; it is "up" again at the first answer. Connection events alone would
// miss a Redis that keeps its sockets open but is stuck.
import type { RedisClient } from '../store/redis-connection.ts';

export type DependencyState = 'up' | 'down';

const PING_INTERVAL_MS = 1_000;

export class RedisStatus {
  readonly #holdMs: number;
  readonly #timer: NodeJS.Timeout;
  #lastAnswerAt = performance.now();
  #pinging = false;

  constructor(client: RedisClient, options: { holdMs?: number; probe?: () => Promise<unknown> } = {}) {
    this.#holdMs = options.holdMs ?? 2_000;
    const probe = options.probe ?? (() => client.ping());
    this.#timer = setInterval(() => {
      if (this.#pinging || client.status !== 'ready') return;
      this.#pinging = true;
      probe().then(
        () => { this.#lastAnswerAt = performance.now(); },
        () => {},
      ).finally(() => { this.#pinging = false; });
    }, PING_INTERVAL_MS).unref();
  }

  get state(): DependencyState {
    return performance.now() - this.#lastAnswerAt >= this.#holdMs ? 'down' : 'up';
  }

  close(): void {
    clearInterval(this.#timer);
  }
}
