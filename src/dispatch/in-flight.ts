// Requests in flight in this process per target (an upstream, or a model on the local engine):
// what the `least-outstanding` route policy compares.
export class InFlight {
  readonly #counts = new Map<object, number>();

  begin(target: object): void {
    this.#counts.set(target, (this.#counts.get(target) ?? 0) + 1);
  }

  end(target: object): void {
    const count = (this.#counts.get(target) ?? 1) - 1;
    if (count === 0) this.#counts.delete(target);
    else this.#counts.set(target, count);
  }

  count(target: object): number {
    return this.#counts.get(target) ?? 0;
  }
}
