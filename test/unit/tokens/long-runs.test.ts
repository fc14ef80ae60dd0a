import { describe, expect, it } from 'vitest';
import { splitLongRuns } from '../../../src/tokens/long-runs.ts';

describe('splitLongRuns', () => {
  it('leaves text without long runs alone', () => {
    expect(splitLongRuns('short')).toBeNull();
    expect(splitLongRuns('word '.repeat(1000))).toBeNull();
  });

  it('cuts runs of letters, symbols and whitespace into bounded chunks', () => {
    for (const text of ['a'.repeat(1000), `${' '.repeat(300)}x`, `ok ${'!'.repeat(500)} ok`]) {
      const chunks = splitLongRuns(text, 128);
      expect(chunks).not.toBeNull();
      expect(chunks?.join('')).toBe(text);
      for (const chunk of chunks ?? []) expect(chunk.length).toBeLessThanOrEqual(128 + 3);
    }
  });

  it('never separates the halves of a surrogate pair', () => {
    const text = '😀'.repeat(200);
    const chunks = splitLongRuns(text, 127) ?? [];
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.isWellFormed()).toBe(true);
    expect(chunks.join('')).toBe(text);
  });
});
