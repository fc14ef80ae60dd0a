import { decode, encode, encodeChat } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import {
  countPromptTokens,
  countTextTokens,
  encodeText,
  splitIntoPieces,
} from '../../../src/tokens/count-tokens.ts';

const CONVERSATION = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'Koliko je sati u Zagrebu? Reci mi točno.' },
];

describe('countTextTokens', () => {
  it('matches the o200k_base encoding', () => {
    for (const text of ['', 'hello world', 'Šećer, ćevapčići i đuveč.', 'line\n\n  indented\ttab', '12345678 😀']) {
      expect(countTextTokens(text)).toBe(encode(text).length);
    }
    expect(countTextTokens('hello world')).toBe(2);
  });

  it('counts special-token markup as plain text instead of throwing', () => {
    const text = 'before <|endoftext|> after';
    expect(() => encode(text)).toThrow();
    expect(countTextTokens(text)).toBe(encodeText(text).length);
    expect(decode(encodeText(text))).toBe(text);
  });

  it('tokenizes very long runs of one character class in linear time with a close count', () => {
    const run = 'x'.repeat(200_000);
    expect(countTextTokens(run)).toBe(25_000);
    expect(decode(encodeText(run))).toBe(run);
    // A short run is not cut, so its count is exact.
    expect(countTextTokens('x'.repeat(100))).toBe(encode('x'.repeat(100)).length);
  });
});

describe('countPromptTokens', () => {
  it('matches an independently framed ChatML encoding', () => {
    expect(countPromptTokens(CONVERSATION)).toBe(31);
    expect(countPromptTokens(CONVERSATION)).toBe(encodeChat(CONVERSATION, 'gpt-4o').length);
  });

  it('adds 3 per message, 3 for the reply priming, and 1 plus the name for a named message', () => {
    expect(countPromptTokens([])).toBe(3);
    expect(countPromptTokens([{ role: 'user', content: '' }])).toBe(3 + 1 + 3);
    const named = countPromptTokens([{ role: 'user', content: 'hi', name: 'ana' }]);
    expect(named).toBe(countPromptTokens([{ role: 'user', content: 'hi' }]) + 1 + encode('ana').length);
  });
});

describe('splitIntoPieces', () => {
  function expectWellFormed(pieces: readonly string[]): void {
    for (const piece of pieces) {
      expect(piece.length).toBeGreaterThan(0);
      expect(piece.isWellFormed()).toBe(true);
      expect(piece).not.toContain('\uFFFD');
    }
  }

  it('yields one piece per token for ordinary text', () => {
    const text = 'Dobar dan, kako ste? Šetam uz more.';
    const { pieces, tokenCount, truncated } = splitIntoPieces(text);
    expect(pieces.join('')).toBe(text);
    expect(pieces).toHaveLength(encode(text).length);
    expect(tokenCount).toBe(encode(text).length);
    expect(truncated).toBe(false);
    expectWellFormed(pieces);
  });

  it('merges the tokens of a character that spans several', () => {
    const text = 'a🦄b𠜎c 䨻';
    const { pieces, tokenCount } = splitIntoPieces(text);
    expect(pieces.join('')).toBe(text);
    expect(tokenCount).toBe(encode(text).length);
    expect(pieces.length).toBeLessThan(tokenCount);
    expect(pieces).toContain('𠜎');
    expectWellFormed(pieces);
    // The tokenizer's shared streaming decoder is left clean.
    expect(decode(encode('čista riječ'))).toBe('čista riječ');
  });

  it('keeps at most maxTokens tokens, cutting only between whole characters', () => {
    const text = 'x🦄y🦄z';
    for (let maxTokens = 0; maxTokens <= encode(text).length; maxTokens++) {
      const { pieces, tokenCount, truncated } = splitIntoPieces(text, maxTokens);
      const kept = pieces.join('');
      expect(text.startsWith(kept)).toBe(true);
      expect(tokenCount).toBe(countTextTokens(kept));
      expect(tokenCount).toBeLessThanOrEqual(maxTokens);
      expect(truncated).toBe(maxTokens < encode(text).length);
      expectWellFormed(pieces);
    }
  });

  it('returns no pieces for empty text', () => {
    expect(splitIntoPieces('')).toEqual({ pieces: [], tokenCount: 0, truncated: false });
  });

  it('keeps a lone surrogate in the text rather than losing it', () => {
    const text = 'ab\uD800cd';
    expect(splitIntoPieces(text).pieces.join('')).toBe(text);
  });
});
