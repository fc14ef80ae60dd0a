// Requests open per client address (an IPv6 /64) in this process, so that one client cannot hold
// the capacity every client shares: past the cap a new request is refused.
import { addressGroup } from './address-group.ts';

export class AddressSlots {
  readonly #max: number;
  readonly #open = new Map<string, number>();

  constructor(maxPerAddress: number) {
    this.#max = maxPerAddress;
  }

  /** The slot to give back with leave(), or null when the address holds the most it may. */
  enter(address: string): string | null {
    const group = addressGroup(address);
    const open = this.#open.get(group) ?? 0;
    if (open >= this.#max) return null;
    this.#open.set(group, open + 1);
    return group;
  }

  leave(group: string): void {
    const open = this.#open.get(group) ?? 0;
    if (open <= 1) this.#open.delete(group);
    else this.#open.set(group, open - 1);
  }
}
