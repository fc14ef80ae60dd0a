// A per-process cap on one key's requests in flight, whatever its rate limits say (they may be
// generous, disabled, or enforced on a local share while Redis is away): one key must not fill a
// worker. Past the cap the request is shed like any overload, with 503 and Retry-After.
import { ApiError } from '../errors/api-error.ts';

const RETRY_AFTER = { 'retry-after': '1' } as const;

export class KeyInFlight {
  readonly #counts = new Map<string, number>();
  readonly #cap: number;

  constructor(cap: number) {
    this.#cap = cap;
  }

  enter(keyId: string): void {
    const count = this.#counts.get(keyId) ?? 0;
    if (count >= this.#cap) {
      throw new ApiError('overloaded', { message: `This key has ${count} requests in flight on this instance, the most it may. Retry shortly.`, headers: RETRY_AFTER });
    }
    this.#counts.set(keyId, count + 1);
  }

  leave(keyId: string): void {
    const count = (this.#counts.get(keyId) ?? 1) - 1;
    if (count <= 0) this.#counts.delete(keyId);
    else this.#counts.set(keyId, count);
  }
}
