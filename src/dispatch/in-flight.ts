// Requests in flight in this process per target: an upstream or a local-engine model (what the
// `least-outstanding` route policy compares), or a key (KeyInFlight's cap).
//
// A target whose count drops to zero keeps its entry: deleting it on every request's end and
// adding it back on the next one reallocated the map's table each time, and a table the map drops
// still points at what it held, which keeps young objects alive into the old generation. Idle
// entries are pruned in bulk once they could make the map large (keys are unbounded in number).
const PRUNE_FLOOR = 1024;

export class InFlight<Target = object> {
  readonly #counts = new Map<Target, number>();
  #pruneAt = PRUNE_FLOOR;

  begin(target: Target): void {
    this.#counts.set(target, (this.#counts.get(target) ?? 0) + 1);
    if (this.#counts.size > this.#pruneAt) this.#prune();
  }

  end(target: Target): void {
    const count = this.#counts.get(target);
    if (count !== undefined && count > 0) this.#counts.set(target, count - 1);
  }

  count(target: Target): number {
    return this.#counts.get(target) ?? 0;
  }

  /** Targets tracked, busy or idle (for tests). */
  get tracked(): number {
    return this.#counts.size;
  }

  #prune(): void {
    for (const [target, count] of this.#counts) if (count === 0) this.#counts.delete(target);
    this.#pruneAt = Math.max(PRUNE_FLOOR, 2 * this.#counts.size);
  }
}
