import { describe, expect, it } from 'vitest';
import { VOCABULARY_EN } from '../../../src/engine/vocabulary-en.ts';
import { VOCABULARY_HR } from '../../../src/engine/vocabulary-hr.ts';

describe.each([
  ['en', VOCABULARY_EN],
  ['hr', VOCABULARY_HR],
])('%s vocabulary', (_language, vocabulary) => {
  const words = [...vocabulary.functionWords, ...vocabulary.contentWords];

  it('has at least 300 distinct lowercase words', () => {
    expect(words.length).toBeGreaterThanOrEqual(300);
    expect(new Set(words).size).toBe(words.length);
    for (const word of words) expect(word).toMatch(/^\p{Ll}+$/u);
  });
});

describe('hr vocabulary', () => {
  it('uses every Croatian diacritic', () => {
    const all = [...VOCABULARY_HR.functionWords, ...VOCABULARY_HR.contentWords].join(' ');
    for (const letter of ['č', 'ć', 'š', 'ž', 'đ']) expect(all).toContain(letter);
  });
});
