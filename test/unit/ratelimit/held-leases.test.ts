// The leases a limiter holds: each held once, given back once, iterated while the sweep deletes.
import { describe, expect, it } from 'vitest';
import { HeldLeases, Holdable } from '../../../src/ratelimit/held-leases.ts';

class Named extends Holdable {
  readonly name: string;

  constructor(name: string) {
    super();
    this.name = name;
  }
}

const names = (held: HeldLeases<Named>): string[] => [...held].map((lease) => lease.name);

describe('held leases', () => {
  it('holds each lease until it is deleted, and deletes it once', () => {
    const held = new HeldLeases<Named>();
    const [a, b, c] = [new Named('a'), new Named('b'), new Named('c')];
    for (const lease of [a, b, c]) held.add(lease);
    expect(names(held).sort()).toEqual(['a', 'b', 'c']);
    expect(held.delete(b)).toBe(true);
    expect(held.delete(b)).toBe(false);
    expect(names(held).sort()).toEqual(['a', 'c']);
    expect(held.delete(c)).toBe(true);
    expect(held.delete(a)).toBe(true);
    expect(names(held)).toEqual([]);
    expect(held.delete(a)).toBe(false);
  });

  it('lets the iteration delete the lease it is on', () => {
    const held = new HeldLeases<Named>();
    const leases = ['a', 'b', 'c', 'd'].map((name) => new Named(name));
    for (const lease of leases) held.add(lease);
    for (const lease of held) if (lease.name !== 'c') held.delete(lease);
    expect(names(held)).toEqual(['c']);
  });

  it('a lease can be held again after it was given back, and clear() gives back every one', () => {
    const held = new HeldLeases<Named>();
    const a = new Named('a');
    held.add(a);
    held.delete(a);
    held.add(a);
    held.add(new Named('b'));
    held.clear();
    expect(names(held)).toEqual([]);
    expect(held.delete(a)).toBe(false);
  });

  it('does not give back a lease held elsewhere', () => {
    const [mine, theirs] = [new HeldLeases<Named>(), new HeldLeases<Named>()];
    const [a, b] = [new Named('a'), new Named('b')];
    theirs.add(a);
    theirs.add(b);
    expect(mine.delete(a)).toBe(false);
    expect(names(theirs).sort()).toEqual(['a', 'b']);
  });

  it('keeps its links out of a lease serialised as JSON', () => {
    const held = new HeldLeases<Named>();
    const [a, b] = [new Named('a'), new Named('b')];
    held.add(a);
    held.add(b);
    expect(JSON.stringify(a)).toBe('{"name":"a"}');
  });
});
