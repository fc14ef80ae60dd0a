import { describe, expect, it } from 'vitest';
import { createRandom } from '../../../src/engine/prng.ts';
import { cumulativeWeights, sampleRank } from '../../../src/engine/word-sampler.ts';

function meanRank(weights: Float64Array, draws = 5000): number {
  const random = createRandom(7);
  let sum = 0;
  for (let i = 0; i < draws; i++) sum += sampleRank(weights, random);
  return sum / draws;
}

describe('word sampler', () => {
  it('samples rarer words as temperature rises', () => {
    const cold = cumulativeWeights('test', 'content', 300, 0.2, 1);
    const warm = cumulativeWeights('test', 'content', 300, 1, 1);
    const hot = cumulativeWeights('test', 'content', 300, 2, 1);
    expect(meanRank(cold)).toBeLessThan(meanRank(warm));
    expect(meanRank(warm)).toBeLessThan(meanRank(hot));
  });

  it('keeps only the nucleus under top_p, but never fewer than a few words', () => {
    const full = cumulativeWeights('test', 'function', 100, 1, 1);
    const half = cumulativeWeights('test', 'function', 100, 1, 0.5);
    expect(full).toHaveLength(100);
    expect(half.length).toBeLessThan(50);
    expect(cumulativeWeights('test', 'function', 100, 1, 0).length).toBe(3);
    const random = createRandom(1);
    for (let i = 0; i < 1000; i++) expect(sampleRank(half, random)).toBeLessThan(half.length);
  });

  it('reuses the cached shape for the same parameters', () => {
    expect(cumulativeWeights('test', 'content', 300, 0.7, 0.9)).toBe(cumulativeWeights('test', 'content', 300, 0.7, 0.9));
  });
});
