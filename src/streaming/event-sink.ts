// Where a completion's stream goes: the client's SSE response as it is (chat), or through the
// request's stream translator (another protocol's events). The engine and the upstream relay
// write chat events to it either way, with the same backpressure.
import type { RequestContext } from '../http/request-context.ts';
import { RecordingSink } from './recording-sink.ts';
import { SseWriter } from './sse-writer.ts';
import type { StreamTranslator } from './stream-translator.ts';
import { TranslatingSink } from './translating-sink.ts';

export interface EventSink {
  readonly closed: boolean;
  /** Sends the 200 status and headers, and optionally the first events. False: wait for whenWritable. */
  open(headers: Readonly<Record<string, string>>, firstEvents?: string | Uint8Array): boolean;
  /** Writes whole, framed events (`data: …\n\n`). False: wait for whenWritable. */
  write(events: string | Uint8Array): boolean;
  whenWritable(resume: () => void): void;
  /** Ends the stream with `events` then `lastEvents`; `headers` when it was never opened. */
  end(lastEvents?: string, events?: string | Uint8Array, headers?: Readonly<Record<string, string>> | null): void;
}

/** `translator`: the stream is of another protocol (and `ctx.streamEnding` is it, for failures); null for chat. */
export function openEventSink(ctx: RequestContext, translator: StreamTranslator | null): EventSink {
  // A reply the response cache will keep is recorded as the client gets it (after any translation).
  const writer = ctx.cacheFill === null ? new SseWriter(ctx) : new RecordingSink(new SseWriter(ctx), ctx.cacheFill);
  return translator === null ? writer : new TranslatingSink(writer, translator);
}
