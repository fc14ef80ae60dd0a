// A Responses API stream relayed as it is (see native-stream-filter.ts). Its lifecycle events carry
// the response object: `response.created`, `.queued`, `.in_progress` (model rewritten; the last
// one is kept to end a cut stream with), then exactly one of `response.completed`,
// `.incomplete` or `.failed` (usage) ends it; an `error` event ends it too. Every `….delta`
// event counts as content.
import { randomBytes } from 'node:crypto';
import type { ByteBatch } from '../streaming/byte-batch.ts';
import { NativeStreamFilter, type StreamFailure } from './native-stream-filter.ts';
import { nativeUsage } from './native-usage.ts';
import type { StreamUsage } from './stream-relay.ts';

const RESPONSE_MODEL = ['response', 'model'];

export class ResponsesStreamFilter extends NativeStreamFilter {
  usage: StreamUsage | null = null;
  /** The response as the last lifecycle event before the end gave it. */
  #response: Record<string, unknown> | null = null;

  protected relay(name: string | null, event: Buffer, text: string, dataAt: number, out: ByteBatch): void {
    let data: Record<string, unknown> | null = null;
    // A server that names no event gives its type in the data only.
    if (name === null) {
      data = this.parsed(event, dataAt);
      if (data === null) return;
      name = typeof data['type'] === 'string' ? data['type'] : '';
    }
    if (name.endsWith('.delta')) {
      this.contentEvents++;
      return out.add(event);
    }
    switch (name) {
      case 'response.created':
      case 'response.queued':
      case 'response.in_progress':
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        data ??= this.parsed(event, dataAt);
        if (data === null) return;
        this.#lifecycle(name, data);
        return this.addWithPublicModel(event, text, dataAt, RESPONSE_MODEL, out);
      case 'error':
        data ??= this.parsed(event, dataAt);
        if (data === null) return;
        this.failedUpstream(data['message'] ?? (data['error'] as { message?: unknown } | null)?.message);
        return out.add(event);
      default:
        return out.add(event);
    }
  }

  #lifecycle(name: string, data: Record<string, unknown>): void {
    const response = data['response'];
    if (response === null || typeof response !== 'object') return;
    const fields = response as Record<string, unknown>;
    if (name === 'response.created' || name === 'response.queued' || name === 'response.in_progress') {
      this.#response = fields;
      return;
    }
    this.usage = nativeUsage('responses', fields['usage']);
    if (name === 'response.failed') this.failedUpstream((fields['error'] as { message?: unknown } | null)?.message);
    else this.finished = true;
  }

  /** `response.failed` with the response as the stream last gave it (or a new one), the error in it. */
  failureEvents(error: StreamFailure): string {
    const response = {
      ...(this.#response ?? { id: `resp_${randomBytes(24).toString('hex')}`, object: 'response', created_at: Math.floor(Date.now() / 1000), output: [], usage: null }),
      model: this.publicModel,
      status: 'failed',
      error: { code: 'server_error', message: error.message },
      incomplete_details: null,
    };
    return `event: response.failed\ndata: ${JSON.stringify({ type: 'response.failed', sequence_number: this.dataEvents, response })}\n\n`;
  }
}
