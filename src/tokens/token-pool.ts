// Prompt token counting that keeps the event loop free: small prompts are counted inline,
// large ones (which take milliseconds to tokenize) on a worker thread.
import type { PromptMessage } from './count-tokens.ts';

/**
 * Tokenizing costs roughly 0.1 ms per KiB, a worker round trip a few tens of microseconds: above
 * 8 Ki characters (~1 ms) the main thread is better off waiting on a worker.
 */
export const OFF_THREAD_PROMPT_CHARS = 8 * 1024;

export type OffThreadCounter = (messages: readonly PromptMessage[]) => Promise<number>;
export type InlineCounter = (messages: readonly PromptMessage[]) => number;

/** UTF-16 length of everything that gets tokenized: the cheap proxy for tokenizing cost. */
export function promptTextLength(messages: readonly PromptMessage[]): number {
  let length = 0;
  for (const message of messages) length += message.role.length + message.content.length + (message.name?.length ?? 0);
  return length;
}

export function countPromptTokensAdaptive(
  messages: readonly PromptMessage[],
  inline: InlineCounter,
  offThread: OffThreadCounter,
  thresholdChars = OFF_THREAD_PROMPT_CHARS,
): Promise<number> {
  if (promptTextLength(messages) <= thresholdChars) {
    try {
      return Promise.resolve(inline(messages));
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return offThread(messages);
}
