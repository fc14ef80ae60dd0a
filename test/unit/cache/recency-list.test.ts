// The recency list the in-memory store keeps its entries in: the oldest is the least recently used,
// and a use, an add or a removal anywhere in the list keeps the order of the rest.
import { describe, expect, it } from 'vitest';
import { RecencyLink, RecencyList } from '../../../src/cache/recency-list.ts';

function order(list: RecencyList<string>, links: Map<string, RecencyLink<string>>): string[] {
  // Read by taking the oldest out until none is left, then put back as it was.
  const seen: string[] = [];
  for (let oldest = list.oldest; oldest !== undefined; oldest = list.oldest) {
    seen.push(oldest);
    list.remove(links.get(oldest)!);
  }
  for (const item of seen) list.add(links.get(item)!);
  return seen;
}

describe('a recency list', () => {
  it('keeps its items from the least to the most recently used', () => {
    const list = new RecencyList<string>();
    const links = new Map(['a', 'b', 'c', 'd'].map((item) => [item, new RecencyLink(item)]));
    expect(list.oldest).toBeUndefined();
    for (const link of links.values()) list.add(link);
    expect(order(list, links)).toEqual(['a', 'b', 'c', 'd']);
    list.use(links.get('b')!);
    list.use(links.get('a')!);
    list.use(links.get('a')!);
    expect(order(list, links)).toEqual(['c', 'd', 'b', 'a']);
    list.remove(links.get('d')!);
    list.remove(links.get('c')!);
    expect(order(list, links)).toEqual(['b', 'a']);
    list.remove(links.get('a')!);
    list.remove(links.get('b')!);
    expect(list.oldest).toBeUndefined();
    list.add(links.get('c')!);
    expect(order(list, links)).toEqual(['c']);
  });
});
