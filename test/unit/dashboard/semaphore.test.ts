import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/errors/api-error.ts';
import { Semaphore } from '../../../src/dashboard/semaphore.ts';

describe('Semaphore', () => {
  it('runs at most `limit` tasks at once, in arrival order, and refuses beyond the waiting room', async () => {
    const semaphore = new Semaphore(2, 3);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const releases: Array<() => void> = [];
    const task = (n: number) => semaphore.run(async () => {
      running++;
      peak = Math.max(peak, running);
      order.push(n);
      await new Promise<void>((resolve) => releases.push(resolve));
      running--;
      return n;
    });
    const accepted = [0, 1, 2, 3, 4].map(task);
    const refused = task(5);
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({ code: 'overloaded', headers: { 'retry-after': '2' } });
    while (order.length < 5 || releases.length > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      releases.shift()?.();
    }
    expect(await Promise.all(accepted)).toEqual([0, 1, 2, 3, 4]);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
  });

  it('gives each owner at most its share of the running and waiting places', async () => {
    const semaphore = new Semaphore(1, 10, 2);
    const releases: Array<() => void> = [];
    const task = (owner: string) => semaphore.run(() => new Promise<string>((resolve) => releases.push(() => resolve(owner))), owner);
    const mine = [task('a'), task('a')];
    await expect(task('a')).rejects.toMatchObject({ code: 'sign_in_throttled', headers: { 'retry-after': '2' } });
    let done = false;
    const theirs = task('b').finally(() => { done = true; });
    while (!done) {
      await new Promise((resolve) => setImmediate(resolve));
      releases.shift()?.();
    }
    expect(await Promise.all(mine)).toEqual(['a', 'a']);
    expect(await theirs).toBe('b');
    const again = task('a'); // its places were given back
    await new Promise((resolve) => setImmediate(resolve));
    releases.shift()?.();
    expect(await again).toBe('a');
  });

  it('frees the slot when a task fails', async () => {
    const semaphore = new Semaphore(1, 0);
    await expect(semaphore.run(async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(await semaphore.run(async () => 'next')).toBe('next');
  });
});
