import { describe, expect, it } from 'vitest';
import { InFlightRequests } from '../../../src/lifecycle/in-flight-requests.ts';

const item = (name: string) => ({ name, inFlightSlot: -1 });

describe('InFlightRequests', () => {
  it('holds what was added until it is deleted, and reuses freed slots', () => {
    const requests = new InFlightRequests<ReturnType<typeof item>>();
    const [a, b, c] = [item('a'), item('b'), item('c')];
    requests.add(a);
    requests.add(b);
    requests.add(c);
    expect(requests.size).toBe(3);
    requests.delete(b);
    expect(requests.items().map((x) => x.name)).toEqual(['a', 'c']);
    expect(b.inFlightSlot).toBe(-1);
    const d = item('d');
    requests.add(d);
    expect(d.inFlightSlot).toBe(1);
    expect(requests.items().map((x) => x.name).sort()).toEqual(['a', 'c', 'd']);
  });

  it('ignores a second add, a second delete and a delete of what it does not hold', () => {
    const requests = new InFlightRequests<ReturnType<typeof item>>();
    const [a, stranger] = [item('a'), item('stranger')];
    requests.add(a);
    requests.add(a);
    expect(requests.size).toBe(1);
    stranger.inFlightSlot = 0; // claims a's slot
    requests.delete(stranger);
    expect(requests.items()).toEqual([a]);
    requests.delete(a);
    requests.delete(a);
    expect(requests.size).toBe(0);
    expect(requests.items()).toEqual([]);
  });

  it('stays as large as the most held at once, however many pass through', () => {
    const requests = new InFlightRequests<ReturnType<typeof item>>();
    const held = Array.from({ length: 10 }, (_, i) => item(`held${i}`));
    for (const x of held) requests.add(x);
    for (let i = 0; i < 10_000; i += 1) {
      const x = item(`passing${i}`);
      requests.add(x);
      expect(x.inFlightSlot).toBe(10);
      requests.delete(x);
    }
    expect(requests.size).toBe(10);
  });
});
