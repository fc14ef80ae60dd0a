// Which upstream served each recent conversation, and its last turn's prompt tokens (what that
// upstream holds of it), for prefix affinity: at most `capacity` entries, the least recently used
// dropped first (a Map keeps insertion order, so a use re-inserts).
import type { UpstreamConfig } from '../config/config-types.ts';

export interface Served {
  readonly upstream: UpstreamConfig;
  readonly promptTokens: number;
}

export class AffinityTable {
  readonly #entries = new Map<string, Served>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(conversation: string): Served | undefined {
    return this.#entries.get(conversation);
  }

  remember(conversation: string, upstream: UpstreamConfig, promptTokens: number): void {
    if (this.#capacity === 0) return;
    this.#entries.delete(conversation);
    this.#entries.set(conversation, { upstream, promptTokens });
    if (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
