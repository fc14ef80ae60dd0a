// Requests in flight in this process per target: an upstream or a local-engine model (what the
// `least-outstanding` route policy compares), or a key (KeyInFlight's cap).
export class InFlight<Target = object> {
  readonly #counts = new Map<Target, number>();

  begin(target: Target): void {
    this.#counts.set(target, (this.#counts.get(target) ?? 0) + 1);
  }

  end(target: Target): void {
    const count = (this.#counts.get(target) ?? 1) - 1;
    if (count <= 0) this.#counts.delete(target);
    else this.#counts.set(target, count);
  }

  count(target: Target): number {
    return this.#counts.get(target) ?? 0;
  }
}
