// Bounds how many tasks run at once; a bounded number wait, and the rest are refused at once
// (`overloaded`), so a burst of sign-ins queues briefly instead of piling up without end.
import { ApiError } from '../errors/api-error.ts';

export class Semaphore {
  readonly #limit: number;
  readonly #maxWaiting: number;
  readonly #waiting: Array<() => void> = [];
  #running = 0;

  constructor(limit: number, maxWaiting: number) {
    this.#limit = limit;
    this.#maxWaiting = maxWaiting;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#limit) {
      if (this.#waiting.length >= this.#maxWaiting) {
        throw new ApiError('overloaded', { message: 'Too many sign-ins at once. Retry in a few seconds.', headers: { 'retry-after': '2' } });
      }
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running++;
    }
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter, so #running never drops below what runs.
      const next = this.#waiting.shift();
      if (next === undefined) this.#running--;
      else next();
    }
  }
}
