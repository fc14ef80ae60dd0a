import { describe, expect, it } from 'vitest';
import { countPromptTokens } from '../../../src/tokens/count-tokens.ts';
import { countPromptTokensAdaptive, promptTextLength } from '../../../src/tokens/token-pool.ts';

describe('countPromptTokensAdaptive', () => {
  const small = [{ role: 'user', content: 'Bok, kako si?' }];
  const large = [{ role: 'user', content: 'Ovo je duga poruka. '.repeat(100) }];

  it('counts a small prompt inline', async () => {
    const offThread = async (): Promise<number> => {
      throw new Error('should not be called');
    };
    await expect(countPromptTokensAdaptive(small, countPromptTokens, offThread, 1000)).resolves.toBe(countPromptTokens(small));
  });

  it('hands a prompt above the threshold to the off-thread counter', async () => {
    const seen: unknown[] = [];
    const offThread = async (messages: readonly unknown[]): Promise<number> => {
      seen.push(messages);
      return 42;
    };
    await expect(countPromptTokensAdaptive(large, countPromptTokens, offThread, 1000)).resolves.toBe(42);
    expect(seen).toEqual([large]);
  });

  it('measures the text that gets tokenized', () => {
    expect(promptTextLength([{ role: 'user', content: 'abc', name: 'x' }, { role: 'system', content: '' }])).toBe(
      4 + 3 + 1 + 6,
    );
  });
});
