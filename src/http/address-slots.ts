// Requests open per client address (an IPv6 /64) in this process, so that one client cannot hold
// the capacity every client shares: past the cap a new request is refused.
import { addressGroup } from './address-group.ts';

// An address whose last request left keeps its entry, at 0, until the map holds this many: deleted
// and added again on every request (a client with one request open at a time, the usual one), it
// would have V8 rebuild the map's table every few requests.
const SWEEP_AT = 4096;

export class AddressSlots {
  readonly #max: number;
  readonly #open = new Map<string, number>();
  #sweepAt = SWEEP_AT;

  constructor(maxPerAddress: number) {
    this.#max = maxPerAddress;
  }

  /** The slot to give back with leave(), or null when the address holds the most it may. */
  enter(address: string): string | null {
    const group = addressGroup(address);
    const open = this.#open.get(group);
    if ((open ?? 0) >= this.#max) return null;
    if (open === undefined && this.#open.size >= this.#sweepAt) this.#sweep();
    this.#open.set(group, (open ?? 0) + 1);
    return group;
  }

  leave(group: string): void {
    const open = this.#open.get(group) ?? 0;
    if (open > 0) this.#open.set(group, open - 1);
  }

  #sweep(): void {
    for (const [group, open] of this.#open) if (open === 0) this.#open.delete(group);
    // So many addresses with requests open at once: the next sweep waits until the map has doubled.
    this.#sweepAt = Math.max(SWEEP_AT, this.#open.size * 2);
  }
}
