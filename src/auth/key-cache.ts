// A small bounded cache with a per-entry TTL. Map iteration order is insertion order, so the
// oldest entry is evicted first when full. An expired entry stays (within the bound) for getStale:
// the last known answer while the source cannot be asked.

export class KeyCache<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;

  constructor(ttlMs: number, maxEntries: number) {
    this.#ttlMs = ttlMs;
    this.#maxEntries = maxEntries;
  }

  get(key: string, now: number): V | undefined {
    const entry = this.#entries.get(key);
    return entry !== undefined && entry.expiresAt > now ? entry.value : undefined;
  }

  /** The entry expired or not. */
  getStale(key: string): V | undefined {
    return this.#entries.get(key)?.value;
  }

  /** Keeps the entry for the TTL, or until `expiresAt` (Unix ms) when that comes first. */
  set(key: string, value: V, now: number, expiresAt = Number.POSITIVE_INFINITY): void {
    if (this.#ttlMs <= 0) return;
    this.#entries.delete(key);
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expiresAt: Math.min(now + this.#ttlMs, expiresAt) });
  }

  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.#entries) {
      if (matches(entry.value)) this.#entries.delete(key);
    }
  }

  clear(): void {
    this.#entries.clear();
  }
}
