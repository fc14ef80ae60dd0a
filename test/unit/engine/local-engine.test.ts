import { describe, expect, it } from 'vitest';
import type { EngineResult, EngineTask } from '../../../src/engine/engine-types.ts';
import { generate } from '../../../src/engine/local-engine.ts';
import { VOCABULARY_HR } from '../../../src/engine/vocabulary-hr.ts';
import { countPromptTokens, countTextTokens, encodeText, splitIntoPieces } from '../../../src/tokens/count-tokens.ts';

const TASK: EngineTask = {
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Tell me about the Adriatic sea.' },
  ],
  language: 'en',
  seed: 1234,
  temperature: 1,
  topP: 1,
  maxTokens: 4096,
  n: 1,
  stop: [],
};

function text(result: EngineResult, index = 0): string {
  return result.choices[index]?.pieces.join('') ?? '';
}

describe('generate', () => {
  it('is byte-identical for the same task and seed', () => {
    const first = generate(TASK);
    expect(JSON.stringify(generate(TASK))).toBe(JSON.stringify(first));
    expect(text(first).length).toBeGreaterThan(0);
  });

  it('gives different text for different seeds', () => {
    expect(text(generate({ ...TASK, seed: 1 }))).not.toBe(text(generate({ ...TASK, seed: 2 })));
  });

  it('ignores the seed at temperature 0 but not the prompt', () => {
    const cold = { ...TASK, temperature: 0 };
    expect(text(generate({ ...cold, seed: 1 }))).toBe(text(generate({ ...cold, seed: 999 })));
    expect(text(generate({ ...cold, seed: null }))).toBe(text(generate({ ...cold, seed: 1 })));
    const otherPrompt = { ...cold, messages: [{ role: 'user', content: 'Something else entirely.' }] };
    expect(text(generate(otherPrompt))).not.toBe(text(generate(cold)));
  });

  it('draws a fresh seed when none is given', () => {
    expect(text(generate({ ...TASK, seed: null }))).not.toBe(text(generate({ ...TASK, seed: null })));
  });

  it('writes capitalised, punctuated sentences of a natural length', () => {
    for (let seed = 0; seed < 20; seed++) {
      const choice = generate({ ...TASK, seed }).choices[0];
      const reply = choice?.pieces.join('') ?? '';
      expect(reply).toMatch(/^[A-Z]/);
      expect(reply).toMatch(/[.?!]$/);
      expect(choice?.finishReason).toBe('stop');
      expect(choice?.completionTokens).toBeGreaterThanOrEqual(15);
      expect(choice?.completionTokens).toBeLessThanOrEqual(140);
    }
  });

  it('reports the real token counts of prompt and reply', () => {
    const result = generate(TASK);
    expect(result.promptTokens).toBe(countPromptTokens(TASK.messages));
    expect(result.choices[0]?.completionTokens).toBe(countTextTokens(text(result)));
    expect(generate(TASK, 777).promptTokens).toBe(777);
  });

  it('generates n independent choices', () => {
    const result = generate({ ...TASK, n: 3 });
    expect(result.choices).toHaveLength(3);
    expect(new Set([0, 1, 2].map((index) => text(result, index))).size).toBe(3);
    expect(text(result, 0)).toBe(text(generate(TASK)));
  });

  it('gives n identical choices at temperature 0', () => {
    const result = generate({ ...TASK, n: 2, temperature: 0 });
    expect(text(result, 0)).toBe(text(result, 1));
  });

  it('cuts the reply before the earliest stop sequence', () => {
    const natural = text(generate(TASK));
    const firstSpace = natural.indexOf(' ', 10);
    const stops = ['\u0000never', natural.slice(firstSpace, firstSpace + 3), natural.slice(-4)];
    const choice = generate({ ...TASK, stop: stops }).choices[0];
    expect(choice?.pieces.join('')).toBe(natural.slice(0, firstSpace));
    expect(choice?.finishReason).toBe('stop');
    expect(choice?.completionTokens).toBe(countTextTokens(natural.slice(0, firstSpace)));
    // Which one ended it, as vLLM tells it; a reply that ends by itself names none.
    expect(choice?.stopSequence).toBe(stops[1]);
    expect(generate({ ...TASK, stop: ['\u0000never'] }).choices[0]).not.toHaveProperty('stopSequence');
  });

  it('cuts the reply to max_tokens with finish_reason "length" and the exact token count', () => {
    const natural = text(generate(TASK));
    for (const maxTokens of [1, 2, 7, 19, 40]) {
      const choice = generate({ ...TASK, maxTokens }).choices[0];
      const reply = choice?.pieces.join('') ?? '';
      expect(choice?.finishReason).toBe('length');
      expect(choice?.completionTokens).toBe(countTextTokens(reply));
      expect(choice?.completionTokens).toBe(maxTokens);
      expect(natural.startsWith(reply)).toBe(true);
    }
  });

  it('ends with "stop" when max_tokens is exactly the natural length', () => {
    const natural = generate(TASK).choices[0];
    const choice = generate({ ...TASK, maxTokens: natural?.completionTokens ?? 0 }).choices[0];
    expect(choice?.finishReason).toBe('stop');
    expect(choice?.pieces).toEqual(natural?.pieces);
  });

  it('assembles exactly the tokens and pieces the tokenizer gives for the whole reply', () => {
    // The engine sums pre-tokenized words instead of tokenizing its reply; this guards that shortcut.
    for (const language of ['en', 'hr'] as const) {
      for (const temperature of [0, 0.7, 2]) {
        for (let seed = 0; seed < 40; seed++) {
          const choice = generate({ ...TASK, language, temperature, seed, n: 1 }).choices[0];
          const reply = choice?.pieces.join('') ?? '';
          expect(choice?.completionTokens).toBe(encodeText(reply).length);
          expect(choice?.pieces).toEqual(splitIntoPieces(reply).pieces);
        }
      }
    }
  });

  it('streams whole characters in about one piece per token, in Croatian too', () => {
    for (let seed = 0; seed < 30; seed++) {
      const choice = generate({ ...TASK, language: 'hr', seed, temperature: 1.5 }).choices[0];
      const pieces = choice?.pieces ?? [];
      for (const piece of pieces) {
        expect(piece.isWellFormed()).toBe(true);
        expect(piece).not.toContain('\uFFFD');
      }
      expect(pieces.length).toBeLessThanOrEqual(choice?.completionTokens ?? 0);
      expect(pieces.length).toBeGreaterThanOrEqual((choice?.completionTokens ?? 0) * 0.9);
    }
  });

  it('answers in Croatian words with diacritics when asked for hr', () => {
    const known = new Set([...VOCABULARY_HR.functionWords, ...VOCABULARY_HR.contentWords]);
    const replies = [1, 2, 3, 4, 5].map((seed) => text(generate({ ...TASK, language: 'hr', seed })));
    expect(replies.join(' ')).toMatch(/[čćšžđČĆŠŽĐ]/);
    for (const reply of replies) {
      const words = reply.split(/[\s,.?!]+/).filter((word) => word.length > 0);
      for (const word of words) expect(known.has(word.toLocaleLowerCase('hr'))).toBe(true);
    }
  });

  it('answers in English by default language en', () => {
    expect(text(generate(TASK))).not.toMatch(/[čćšžđ]/);
  });

  it('prefers common words at low temperature and rarer ones at high temperature', () => {
    const meanWordLength = (temperature: number): number => {
      let letters = 0;
      let words = 0;
      for (let seed = 0; seed < 40; seed++) {
        for (const word of text(generate({ ...TASK, seed, temperature })).split(/[\s,.?!]+/)) {
          letters += word.length;
          words += word.length > 0 ? 1 : 0;
        }
      }
      return letters / words;
    };
    // Frequent words are short (Zipf's law of abbreviation), so the mean word length rises with temperature.
    expect(meanWordLength(0.3)).toBeLessThan(meanWordLength(1.8));
  });
});
