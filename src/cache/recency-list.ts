// Items from the least to the most recently used, as a doubly linked list: a use moves an item to
// the newest end by relinking it. A Map (or a Set) kept in the same order moves it by deleting it
// and adding it back, whose deleted slots pile up until the table is rebuilt: the in-memory store's
// get took ~0.2 µs with a few entries that way, ~0.03 µs relinked.

/** An item's place in one list; an item in several lists has a link for each. */
export class RecencyLink<T> {
  readonly item: T;
  older: RecencyLink<T> | null = null;
  newer: RecencyLink<T> | null = null;

  constructor(item: T) {
    this.item = item;
  }
}

export class RecencyList<T> {
  #oldest: RecencyLink<T> | null = null;
  #newest: RecencyLink<T> | null = null;

  /** The least recently used item; undefined when the list is empty. */
  get oldest(): T | undefined {
    return this.#oldest?.item;
  }

  /** Adds `link`, in no list, as the most recently used. */
  add(link: RecencyLink<T>): void {
    link.older = this.#newest;
    link.newer = null;
    if (this.#newest === null) this.#oldest = link;
    else this.#newest.newer = link;
    this.#newest = link;
  }

  /** Takes `link` out of this list. */
  remove(link: RecencyLink<T>): void {
    if (link.older === null) this.#oldest = link.newer;
    else link.older.newer = link.newer;
    if (link.newer === null) this.#newest = link.older;
    else link.newer.older = link.older;
    link.older = null;
    link.newer = null;
  }

  /** Makes `link`, in this list, the most recently used. */
  use(link: RecencyLink<T>): void {
    if (link === this.#newest) return;
    this.remove(link);
    this.add(link);
  }
}
