import { describe, expect, it } from 'vitest';
import { InFlight } from '../../../src/dispatch/in-flight.ts';

describe('InFlight', () => {
  it('counts per target, never below zero', () => {
    const inFlight = new InFlight<string>();
    inFlight.begin('a');
    inFlight.begin('a');
    inFlight.begin('b');
    expect([inFlight.count('a'), inFlight.count('b'), inFlight.count('c')]).toEqual([2, 1, 0]);
    inFlight.end('a');
    inFlight.end('b');
    inFlight.end('b');
    inFlight.end('c');
    expect([inFlight.count('a'), inFlight.count('b'), inFlight.count('c')]).toEqual([1, 0, 0]);
  });

  it('keeps an idle target until many are idle, then drops the idle ones and keeps the busy', () => {
    const inFlight = new InFlight<string>();
    inFlight.begin('busy');
    inFlight.begin('idle');
    inFlight.end('idle');
    expect(inFlight.tracked).toBe(2);
    for (let i = 0; i < 5_000; i += 1) {
      inFlight.begin(`key${i}`);
      inFlight.end(`key${i}`);
    }
    expect(inFlight.tracked).toBeLessThanOrEqual(1_025);
    expect(inFlight.count('busy')).toBe(1);
    inFlight.end('busy');
    expect(inFlight.count('busy')).toBe(0);
  });
});
