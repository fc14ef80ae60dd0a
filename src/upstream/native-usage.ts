// The token counts an upstream of another API reports, as they are billed: the prompt and the
// completion, as for a chat completion.
import type { NativeApi } from './native-request.ts';
import type { StreamUsage } from './stream-relay.ts';

/**
 * A `usage` object's counts, or null when it has none. Responses: `input_tokens` (cached ones,
 * `input_tokens_details.cached_tokens`, are among them) and `output_tokens`. Messages:
 * `input_tokens` plus the prompt tokens written to and read from its cache, which Anthropic counts
 * apart (those read are the cached ones), and `output_tokens`.
 */
export function nativeUsage(api: NativeApi, usage: unknown): StreamUsage | null {
  if (usage === null || typeof usage !== 'object') return null;
  const counts = usage as Record<string, unknown>;
  const input = counts['input_tokens'];
  const output = counts['output_tokens'];
  if (!isCount(input) || !isCount(output)) return null;
  if (api === 'responses') {
    const details = counts['input_tokens_details'] as Record<string, unknown> | null | undefined;
    return { promptTokens: input, completionTokens: output, cachedPromptTokens: countOr0(details?.['cached_tokens']) };
  }
  const read = countOr0(counts['cache_read_input_tokens']);
  return { promptTokens: input + countOr0(counts['cache_creation_input_tokens']) + read, completionTokens: output, cachedPromptTokens: read };
}

export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

export function countOr0(value: unknown): number {
  return isCount(value) ? value : 0;
}
