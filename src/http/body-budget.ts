// The request body bytes one process holds at once while reading them, across all requests: a
// ceiling on what clients sending bodies can make it allocate, however many connections they open.

export class BodyBudget {
  readonly maxBytes: number;
  #usedBytes = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get usedBytes(): number {
    return this.#usedBytes;
  }

  /** Takes `bytes` if they fit; false (taking nothing) if they do not. */
  take(bytes: number): boolean {
    if (this.#usedBytes + bytes > this.maxBytes) return false;
    this.#usedBytes += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#usedBytes -= bytes;
  }
}

/** For a server built without one (tests of other parts): no ceiling. */
export const UNLIMITED_BODY_BUDGET = new BodyBudget(Number.POSITIVE_INFINITY);
