// A per-process cap on one key's requests in flight, whatever its rate limits say (they may be
// generous, disabled, or enforced on a local share while Redis is away): one key must not fill a
// worker. Past the cap the request is shed like any overload, with 503 and Retry-After.
import { ApiError } from '../errors/api-error.ts';
import { InFlight } from './in-flight.ts';

const RETRY_AFTER = { 'retry-after': '1' } as const;

export class KeyInFlight {
  readonly #keys = new InFlight<string>();
  readonly #cap: number;

  constructor(cap: number) {
    this.#cap = cap;
  }

  enter(keyId: string): void {
    const count = this.#keys.count(keyId);
    if (count >= this.#cap) {
      throw new ApiError('overloaded', { message: `This key has ${count} requests in flight on this instance, the most it may. Retry shortly.`, headers: RETRY_AFTER });
    }
    this.#keys.begin(keyId);
  }

  leave(keyId: string): void {
    this.#keys.end(keyId);
  }
}
