// The counts of another API's `usage`, with the prompt tokens its server read from its cache.
import { expect, it } from 'vitest';
import { nativeUsage } from '../../../src/upstream/native-usage.ts';

it('reads the cached input tokens of a Responses usage, which input_tokens includes', () => {
  expect(nativeUsage('responses', { input_tokens: 100, output_tokens: 5, input_tokens_details: { cached_tokens: 64 } }))
    .toEqual({ promptTokens: 100, completionTokens: 5, cachedPromptTokens: 64 });
  expect(nativeUsage('responses', { input_tokens: 100, output_tokens: 5, input_tokens_details: null }))
    .toEqual({ promptTokens: 100, completionTokens: 5, cachedPromptTokens: 0 });
});

it('counts the cache reads of a Messages usage as cached prompt tokens, and cache writes as input', () => {
  expect(nativeUsage('messages', { input_tokens: 10, cache_creation_input_tokens: 20, cache_read_input_tokens: 70, output_tokens: 5 }))
    .toEqual({ promptTokens: 100, completionTokens: 5, cachedPromptTokens: 70 });
  expect(nativeUsage('messages', { input_tokens: 10, cache_read_input_tokens: 'many', output_tokens: 5 }))
    .toEqual({ promptTokens: 10, completionTokens: 5, cachedPromptTokens: 0 });
});
