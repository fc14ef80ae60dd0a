// The leases a limiter holds, linked through the leases themselves: holding and settling one
// allocates nothing, where a Set's table was rebuilt every few dozen adds and deletes.

/** A lease that can be held: its links are its own (private: a lease stays plain data to read or log). */
export class Holdable {
  /** The leases it is held in (a lease of another limiter is not held by this one's). */
  #holder: object | null = null;
  #previous: Holdable | null = null;
  #next: Holdable | null = null;

  isHeldBy(holder: object): boolean {
    return this.#holder === holder;
  }

  /** The lease held after this one. */
  get following(): Holdable | null {
    return this.#next;
  }

  /** Holds this lease in `holder`, before `first`. */
  holdBefore(holder: object, first: Holdable | null): void {
    this.#holder = holder;
    this.#previous = null;
    this.#next = first;
    if (first !== null) first.#previous = this;
  }

  /** Unlinks this lease from its neighbours. */
  unhold(): void {
    if (this.#previous !== null) this.#previous.#next = this.#next;
    if (this.#next !== null) this.#next.#previous = this.#previous;
    this.#holder = null;
    this.#previous = null;
    this.#next = null;
  }
}

export class HeldLeases<Lease extends Holdable> {
  #first: Lease | null = null;

  add(lease: Lease): void {
    lease.holdBefore(this, this.#first);
    this.#first = lease;
  }

  /** Whether `lease` was held here (and is no more). */
  delete(lease: Lease): boolean {
    if (!lease.isHeldBy(this)) return false;
    if (this.#first === lease) this.#first = lease.following as Lease | null;
    lease.unhold();
    return true;
  }

  /** The leases held; deleting the one just given is allowed. */
  *[Symbol.iterator](): IterableIterator<Lease> {
    for (let lease = this.#first; lease !== null;) {
      const next = lease.following as Lease | null;
      yield lease;
      lease = next;
    }
  }

  clear(): void {
    while (this.#first !== null) this.delete(this.#first);
  }
}
