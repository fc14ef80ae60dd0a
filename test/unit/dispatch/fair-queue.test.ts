// The admission queue's order: bands strictly by priority, accounts in turn within a band (one heavy
// account cannot starve the others), first in first out within an account, and removal anywhere.
import { describe, expect, it } from 'vitest';
import { BANDS, FairQueue } from '../../../src/dispatch/fair-queue.ts';

interface Item {
  readonly accountId: string;
  readonly band: number;
  readonly name: string;
}

const HIGH = BANDS.indexOf('high');
const NORMAL = BANDS.indexOf('normal');
const LOW = BANDS.indexOf('low');

function item(accountId: string, band: number, name: string): Item {
  return { accountId, band, name };
}

function drain(queue: FairQueue<Item>): string[] {
  const order: string[] = [];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) order.push(next.name);
  return order;
}

describe('FairQueue', () => {
  it('serves higher bands first, whatever the arrival order', () => {
    const queue = new FairQueue<Item>();
    queue.push(item('a', LOW, 'low-1'));
    queue.push(item('a', NORMAL, 'normal-1'));
    queue.push(item('b', HIGH, 'high-1'));
    queue.push(item('a', LOW, 'low-2'));
    queue.push(item('c', HIGH, 'high-2'));
    expect(queue.size).toBe(5);
    expect(drain(queue)).toEqual(['high-1', 'high-2', 'normal-1', 'low-1', 'low-2']);
    expect(queue.size).toBe(0);
    expect(queue.shift()).toBeUndefined();
  });

  it('takes accounts in turn within a band: one with many requests waiting delays each other by one per round', () => {
    const queue = new FairQueue<Item>();
    for (let i = 1; i <= 6; i++) queue.push(item('heavy', NORMAL, `heavy-${i}`));
    queue.push(item('light-1', NORMAL, 'light-1'));
    queue.push(item('light-2', NORMAL, 'light-2'));
    const order = drain(queue);
    expect(order.slice(0, 3)).toEqual(['heavy-1', 'light-1', 'light-2']);
    // The heavy account's own requests keep their order.
    expect(order.filter((name) => name.startsWith('heavy'))).toEqual(['heavy-1', 'heavy-2', 'heavy-3', 'heavy-4', 'heavy-5', 'heavy-6']);
  });

  it('an account that arrives while another has a backlog is served within one round', () => {
    const queue = new FairQueue<Item>();
    for (let i = 1; i <= 4; i++) queue.push(item('heavy', NORMAL, `heavy-${i}`));
    expect(queue.shift()?.name).toBe('heavy-1');
    queue.push(item('late', NORMAL, 'late-1'));
    expect(drain(queue)).toEqual(['heavy-2', 'late-1', 'heavy-3', 'heavy-4']);
  });

  it('removes a request wherever it waits, once', () => {
    const queue = new FairQueue<Item>();
    const middle = item('a', NORMAL, 'a-2');
    const alone = item('b', LOW, 'b-1');
    queue.push(item('a', NORMAL, 'a-1'));
    queue.push(middle);
    queue.push(item('a', NORMAL, 'a-3'));
    queue.push(alone);
    expect(queue.remove(middle)).toBe(true);
    expect(queue.remove(middle)).toBe(false);
    expect(queue.remove(alone)).toBe(true);
    expect(queue.size).toBe(2);
    expect(drain(queue)).toEqual(['a-1', 'a-3']);
  });
});
