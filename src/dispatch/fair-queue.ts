// Requests waiting for a saturated model, in the order they leave: three bands served strictly in
// turn (high, then normal, then low), and within a band one first-in-first-out line per account,
// the accounts served one request each in rotation, so that an account with many requests waiting
// delays each other account by at most one request per round.
import type { PriorityBand } from '../config/config-types.ts';

/** The bands, highest first: a waiting request's `band` is its index here. */
export const BANDS: readonly PriorityBand[] = ['high', 'normal', 'low'];

export interface Waiting {
  readonly accountId: string;
  /** An index into BANDS. */
  readonly band: number;
}

export class FairQueue<T extends Waiting> {
  // Per band, the accounts with requests waiting in their turn's order: a Map keeps insertion order,
  // and an account served goes to the back by being inserted again.
  readonly #bands: Array<Map<string, T[]>> = BANDS.map(() => new Map<string, T[]>());
  #size = 0;

  get size(): number {
    return this.#size;
  }

  push(item: T): void {
    const accounts = this.#bands[item.band]!;
    const line = accounts.get(item.accountId);
    if (line === undefined) accounts.set(item.accountId, [item]);
    else line.push(item);
    this.#size++;
  }

  /** The next to leave: the highest band's account whose turn it is, its oldest request; undefined when empty. */
  shift(): T | undefined {
    for (const accounts of this.#bands) {
      const next = accounts.entries().next();
      if (next.done === true) continue;
      const [accountId, line] = next.value;
      const item = line.shift()!;
      accounts.delete(accountId);
      if (line.length > 0) accounts.set(accountId, line);
      this.#size--;
      return item;
    }
    return undefined;
  }

  /** Takes `item` out wherever it waits (its client left, its deadline passed); false if it was not waiting. */
  remove(item: T): boolean {
    const accounts = this.#bands[item.band]!;
    const line = accounts.get(item.accountId);
    const at = line === undefined ? -1 : line.indexOf(item);
    if (at === -1) return false;
    line!.splice(at, 1);
    if (line!.length === 0) accounts.delete(item.accountId);
    this.#size--;
    return true;
  }
}
