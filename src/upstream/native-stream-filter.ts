// The stream of an upstream that speaks the client's API (Responses, Messages), relayed event by
// event as the server wrote it. Only the few events that carry the model or usage, or that end the
// stream, are parsed: their `model` becomes the public id (spliced into the bytes), their usage is
// kept for billing, and the end they mark tells a whole stream from a cut one. A cut stream ends
// with the API's own failure event, never with chat's; so does one the gateway ends itself
// (shutting down, a stalled client), through the request's translator (NativeStreamEnding).
import { ApiError } from '../errors/api-error.ts';
import type { RequestContext } from '../http/request-context.ts';
import type { ByteBatch } from '../streaming/byte-batch.ts';
import type { EventSink } from '../streaming/event-sink.ts';
import { SseWriter } from '../streaming/sse-writer.ts';
import type { StreamTranslator } from '../streaming/stream-translator.ts';
import { dataPayloads } from '../streaming/translating-sink.ts';
import { modelToReplace, quotedModel } from './native-reply.ts';
import { sseLines } from './sse-lines.ts';
import type { StreamFilter, StreamUsage } from './stream-relay.ts';

/** Why a stream failed, as a translator is told (an ApiError, or an upstream's error). */
export type StreamFailure = Parameters<StreamTranslator['failed']>[0];

const [DATA, EVENT] = ['data:', 'event:'];
const [SPACE, LF, CR] = [32, 10, 13];

export abstract class NativeStreamFilter implements StreamFilter {
  broken: string | null = null;
  finished = false;
  upstreamError: ApiError | null = null;
  contentEvents = 0;
  /** Events with data passed on: a Responses stream numbers them from 0. */
  dataEvents = 0;
  protected readonly publicModel: string;

  constructor(publicModel: string) {
    this.publicModel = publicModel;
  }

  abstract readonly usage: StreamUsage | null;

  /** The event named `name` (its `event:` field; null without one), whose data begins at `dataAt`. */
  protected abstract relay(name: string | null, event: Buffer, text: string, dataAt: number, out: ByteBatch): void;

  abstract failureEvents(error: StreamFailure): string;

  filter(event: Buffer, text: string, out: ByteBatch): void {
    if (this.finished) return out.add(event); // past the end: nothing more to learn
    const dataAt = text.startsWith(DATA) ? 0 : lineAt(text, DATA);
    if (!sseLines(text, dataAt === 0)) {
      this.broken = 'The model server sent bytes that are not server-sent events mid-stream.';
      return;
    }
    if (dataAt === -1) return out.add(event); // a comment or a field we do not interpret
    this.dataEvents++;
    this.relay(eventName(text), event, text, dataAt, out);
  }

  /** The API's stream ends with its own last event, which the upstream sent. */
  closingEvents(): string {
    return '';
  }

  /** The event's data as JSON; null (and the stream broken) when it is not. */
  protected parsed(event: Buffer, dataAt: number): Record<string, unknown> | null {
    try {
      const data = JSON.parse(dataPayloads(event.toString('utf8', dataAt))[0] ?? '') as unknown;
      if (data !== null && typeof data === 'object') return data as Record<string, unknown>;
    } catch {
      // refused below
    }
    this.broken = 'The model server sent an event whose data is not a JSON object.';
    return null;
  }

  /** Adds the event with the string at `path` in its data set to the public id. */
  protected addWithPublicModel(event: Buffer, text: string, dataAt: number, path: readonly string[], out: ByteBatch): void {
    const span = modelToReplace(event, text, path, this.publicModel, dataAt);
    if (span === null) return out.add(event);
    // As ranges of the event around our id, not a copy (see stream-event-filter.ts).
    out.add(event, 0, span.start);
    out.add(quotedModel(this.publicModel));
    out.add(event, span.end);
  }

  /** The upstream's own error ends the stream (it was relayed as the API's event). */
  protected failedUpstream(detail: unknown): void {
    this.finished = true;
    const message = typeof detail === 'string' ? `: ${detail.slice(0, 500)}` : '';
    this.upstreamError = new ApiError('upstream_error', { message: `The model server failed mid-stream${message}` });
  }
}

/**
 * What the request's translator gives when the gateway ends a native stream itself: the API's
 * failure event. The chat events it would translate never come (the relay writes the upstream's).
 */
class NativeStreamEnding implements StreamTranslator {
  readonly #filter: NativeStreamFilter;

  constructor(filter: NativeStreamFilter) {
    this.#filter = filter;
  }

  chunk(): string {
    return '';
  }

  done(): string {
    return '';
  }

  failed(error: StreamFailure): string {
    return this.#filter.failureEvents(error);
  }
}

/** The client's stream for a native relay: written as it is, the request's failures in the API's events. */
export function openNativeSink(ctx: RequestContext, filter: NativeStreamFilter): EventSink {
  ctx.streamEnding = new NativeStreamEnding(filter);
  return new SseWriter(ctx);
}

/** Where the line opening with `field` begins in `text` (not at 0), or -1. */
function lineAt(text: string, field: string): number {
  const at = text.indexOf(`\n${field}`);
  return at === -1 ? -1 : at + 1;
}

/** The value of the event's `event:` field, or null. */
function eventName(text: string): string | null {
  const at = text.startsWith(EVENT) ? 0 : lineAt(text, EVENT);
  if (at === -1) return null;
  let start = at + EVENT.length;
  if (text.charCodeAt(start) === SPACE) start++;
  let end = start;
  for (let char = text.charCodeAt(end); end < text.length && char !== LF && char !== CR; char = text.charCodeAt(++end));
  return text.slice(start, end);
}
