// A Messages API stream relayed as it is (see native-stream-filter.ts): `message_start` carries the
// model (rewritten) and the prompt's usage, each `message_delta` the output count so far,
// `content_block_delta` is content, and `message_stop` ends the stream; an `error` event ends it too.
// Anthropic's clients read only named events, so an event without a name is passed on untouched.
import type { ByteBatch } from '../streaming/byte-batch.ts';
import { NativeStreamFilter, type StreamFailure } from './native-stream-filter.ts';
import { isCount, nativeUsage } from './native-usage.ts';
import type { StreamUsage } from './stream-relay.ts';

const MESSAGE_MODEL = ['message', 'model'];

export class MessagesStreamFilter extends NativeStreamFilter {
  /** From message_start (the prompt, whole; the output, a first count) and the last message_delta. */
  #promptTokens: number | null = null;
  #completionTokens: number | null = null;
  #cachedPromptTokens = 0;

  get usage(): StreamUsage | null {
    if (this.#promptTokens === null) return null;
    return { promptTokens: this.#promptTokens, completionTokens: this.#completionTokens ?? this.contentEvents, cachedPromptTokens: this.#cachedPromptTokens };
  }

  protected relay(name: string | null, event: Buffer, text: string, dataAt: number, out: ByteBatch): void {
    switch (name) {
      case 'content_block_delta':
        this.contentEvents++;
        return out.add(event);
      case 'message_start': {
        const data = this.parsed(event, dataAt);
        if (data === null) return;
        const usage = nativeUsage('messages', (data['message'] as { usage?: unknown } | null)?.usage);
        if (usage !== null) {
          this.#promptTokens = usage.promptTokens;
          this.#cachedPromptTokens = usage.cachedPromptTokens;
        }
        return this.addWithPublicModel(event, text, dataAt, MESSAGE_MODEL, out);
      }
      case 'message_delta': {
        const data = this.parsed(event, dataAt);
        if (data === null) return;
        const usage = data['usage'] as Record<string, unknown> | null | undefined;
        // Its counts are the whole message's so far; the prompt's only in newer servers' deltas.
        if (isCount(usage?.['output_tokens'])) this.#completionTokens = usage['output_tokens'];
        if (isCount(usage?.['input_tokens'])) {
          const counts = nativeUsage('messages', { ...usage, output_tokens: 0 })!;
          this.#promptTokens = counts.promptTokens;
          this.#cachedPromptTokens = counts.cachedPromptTokens;
        }
        return out.add(event);
      }
      case 'message_stop':
        this.finished = true;
        return out.add(event);
      case 'error': {
        const data = this.parsed(event, dataAt);
        if (data === null) return;
        this.failedUpstream((data['error'] as { message?: unknown } | null)?.message);
        return out.add(event);
      }
      default:
        return out.add(event);
    }
  }

  /** Anthropic's `error` event. */
  failureEvents(error: StreamFailure): string {
    const type = error.code === 'upstream_timeout' ? 'timeout_error' : 'api_error';
    return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type, message: error.message } })}\n\n`;
  }
}
