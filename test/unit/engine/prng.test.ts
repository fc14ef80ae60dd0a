import { describe, expect, it } from 'vitest';
import { createRandom, hashText, mixSeed, seedHalves } from '../../../src/engine/prng.ts';

describe('prng', () => {
  it('repeats its sequence for a seed and stays within [0, 1)', () => {
    const a = createRandom(42);
    const b = createRandom(42);
    for (let i = 0; i < 1000; i++) {
      const value = a();
      expect(value).toBe(b());
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
    }
    expect(createRandom(43)()).not.toBe(createRandom(42)());
  });

  it('splits large and negative seeds into distinct 32-bit halves', () => {
    expect(seedHalves(5)).toEqual([5, 0]);
    expect(seedHalves(2 ** 32 + 5)).toEqual([5, 1]);
    expect(seedHalves(-1)).not.toEqual(seedHalves(2 ** 32 - 1));
    expect(mixSeed(...seedHalves(2 ** 40))).not.toBe(mixSeed(...seedHalves(0)));
  });

  it('hashes text stably and order-sensitively', () => {
    expect(hashText('abc')).toBe(hashText('abc'));
    expect(hashText('abc')).not.toBe(hashText('acb'));
    expect(mixSeed(1, 2)).not.toBe(mixSeed(2, 1));
  });
});
