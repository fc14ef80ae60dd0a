import { describe, expect, it } from 'vitest';
import { countPromptTokens } from '../../../src/tokens/count-tokens.ts';
import { estimatePromptTokens } from '../../../src/tokens/estimate-tokens.ts';

describe('estimatePromptTokens', () => {
  it('stays within a factor of two of the real count for English chat', () => {
    const messages = [
      { role: 'system', content: 'You are a helpful assistant that answers briefly and precisely.' },
      { role: 'user', content: 'Explain how a token bucket rate limiter refills and what happens when a request needs more tokens than are left.' },
    ];
    const real = countPromptTokens(messages);
    const estimate = estimatePromptTokens(messages);
    expect(estimate / real).toBeGreaterThan(0.5);
    expect(estimate / real).toBeLessThan(2);
  });

  it('grows with the text and counts each message', () => {
    expect(estimatePromptTokens([{ content: 'x'.repeat(400) }])).toBe(3 + 100 + 4);
    expect(estimatePromptTokens([{ content: '' }, { content: '' }])).toBe(3 + 8);
  });
});
