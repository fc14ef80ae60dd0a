import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../../../src/auth/api-key.ts';
import { maskApiKeys } from '../../../src/auth/mask-api-keys.ts';

describe('maskApiKeys', () => {
  it('keeps the prefix and the last four characters of every key in a text', () => {
    const one = generateApiKey();
    const two = generateApiKey();
    expect(maskApiKeys(`The model "${one}" does not exist; nor ${two}.`)).toBe(`The model "sk_munja_…${one.slice(-4)}" does not exist; nor sk_munja_…${two.slice(-4)}.`);
  });

  it('masks malformed and partial keys too, showing nothing of a short one', () => {
    const long = `${generateApiKey()}Zz9`;
    expect(maskApiKeys(`/v1/${long}/x`)).toBe(`/v1/sk_munja_…${long.slice(-4)}/x`);
    expect(maskApiKeys('sk_munja_abc123')).toBe('sk_munja_…');
  });

  it('leaves other text as it is', () => {
    for (const text of ['', '/v1/chat/completions', 'fast', 'sk-proj-abc', 'sk_munja', 'Bearer sk_munja_…', 'start with sk_munja_.']) {
      expect(maskApiKeys(text)).toBe(text);
    }
  });
});
