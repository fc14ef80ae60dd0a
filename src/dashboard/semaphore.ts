// Bounds how many tasks run at once; a bounded number wait, and the rest are refused at once
// (`overloaded`), so a burst of sign-ins queues briefly instead of piling up without end. Each
// owner (a client address) may hold at most `maxPerOwner` of the running and waiting places, so a
// few addresses cannot fill the queue and starve everyone else (refused with `sign_in_throttled`).
import { ApiError } from '../errors/api-error.ts';

export class Semaphore {
  readonly #limit: number;
  readonly #maxWaiting: number;
  readonly #maxPerOwner: number;
  readonly #waiting: Array<() => void> = [];
  readonly #held = new Map<string, number>();
  #running = 0;

  constructor(limit: number, maxWaiting: number, maxPerOwner = Infinity) {
    this.#limit = limit;
    this.#maxWaiting = maxWaiting;
    this.#maxPerOwner = maxPerOwner;
  }

  async run<T>(task: () => Promise<T>, owner = ''): Promise<T> {
    const held = this.#held.get(owner) ?? 0;
    if (held >= this.#maxPerOwner) {
      throw new ApiError('sign_in_throttled', { message: 'Too many sign-ins at once from this address. Retry in a few seconds.', headers: { 'retry-after': '2' } });
    }
    if (this.#running >= this.#limit && this.#waiting.length >= this.#maxWaiting) {
      throw new ApiError('overloaded', { message: 'Too many sign-ins at once. Retry in a few seconds.', headers: { 'retry-after': '2' } });
    }
    this.#held.set(owner, held + 1);
    try {
      if (this.#running >= this.#limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
      else this.#running++;
      try {
        return await task();
      } finally {
        // Hand the slot straight to the next waiter, so #running never drops below what runs.
        const next = this.#waiting.shift();
        if (next === undefined) this.#running--;
        else next();
      }
    } finally {
      const left = (this.#held.get(owner) ?? 1) - 1;
      if (left === 0) this.#held.delete(owner);
      else this.#held.set(owner, left);
    }
  }
}
