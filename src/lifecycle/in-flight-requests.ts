// The requests in flight, kept in a slot array rather than a Set. Under load a Set's table is
// rebuilt every few dozen requests; once the table is in the old generation its replacements are
// allocated there too, and a dropped table still points at the requests it held. The young
// collector cannot tell that table is dead, so every request it held — and everything that request
// reaches — was promoted and stayed until the next full collection. A slot is cleared when its
// request leaves, and the arrays grow only to the highest concurrency seen.
export interface Slotted {
  /** This item's slot, or -1 while it is not in a collection. */
  inFlightSlot: number;
}

export class InFlightRequests<T extends Slotted> {
  readonly #slots: (T | undefined)[] = [];
  readonly #free: number[] = [];
  #size = 0;

  get size(): number {
    return this.#size;
  }

  add(item: T): void {
    if (item.inFlightSlot !== -1) return;
    const slot = this.#free.length > 0 ? this.#free.pop()! : this.#slots.length;
    this.#slots[slot] = item;
    item.inFlightSlot = slot;
    this.#size += 1;
  }

  delete(item: T): void {
    const slot = item.inFlightSlot;
    if (slot === -1 || this.#slots[slot] !== item) return;
    this.#slots[slot] = undefined;
    this.#free.push(slot);
    item.inFlightSlot = -1;
    this.#size -= 1;
  }

  /** A snapshot of what is in flight. */
  items(): T[] {
    return this.#slots.filter((item): item is T => item !== undefined);
  }
}
