// Server-sent events on a uWS response, with backpressure: write() reports false once uWS had to
// buffer, and the producer waits for whenWritable() before sending more. A client that reads
// nothing for the request's writeStallMs while the producer waits is cut off: the connection is
// closed, which runs the abort path and so stops the work behind the stream (the upstream request,
// the engine). uWS buffers at most what the producer wrote before it paused.
import type { EventSink } from './event-sink.ts';
import { beginStreaming } from '../http/respond.ts';
import { openStreams } from '../observability/open-streams.ts';
import type { RequestContext } from '../http/request-context.ts';

const SSE_HEADERS = {
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
} as const;


export class SseWriter implements EventSink {
  readonly #ctx: RequestContext;
  /** Waiting for the client to read; the stall timer cuts it off if that lasts too long. */
  #stalled = false;
  // One timer per stream, made on its first stall and re-armed (refresh) on later ones.
  #stallTimer: NodeJS.Timeout | null = null;
  // What the corked writes below write. uWS runs a corked write before cork() returns, so these
  // fields, and one callback of each kind for all writers, serve every write: no closure is made
  // per write or per stream.
  #events: string | Uint8Array = '';
  #lastEvents = '';
  #headers: Readonly<Record<string, string>> | null = null;
  #wrote = true;
  static #corked: SseWriter;

  constructor(ctx: RequestContext) {
    this.#ctx = ctx;
  }

  get closed(): boolean {
    return this.#ctx.aborted || this.#ctx.finished;
  }

  /** Sends the 200 status and headers, and optionally the first events, in one corked write. */
  open(headers: Readonly<Record<string, string>>, firstEvents: string | Uint8Array = ''): boolean {
    if (this.closed) return false;
    this.#headers = headers;
    this.#events = firstEvents;
    SseWriter.#corked = this;
    this.#ctx.res.cork(SseWriter.#openCorked);
    this.#events = '';
    return this.#wrote;
  }

  static readonly #openCorked = (): void => {
    const writer = SseWriter.#corked;
    writer.#begin();
    writer.#wrote = writer.#ctx.res.write(writer.#events);
  };

  /** The status and headers, inside a cork. */
  #begin(): void {
    const ctx = this.#ctx;
    const headers = this.#headers!;
    this.#headers = null;
    beginStreaming(ctx, 'text/event-stream; charset=utf-8', { ...SSE_HEADERS, ...headers });
    if (ctx.firstByteMs === null) ctx.firstByteMs = Math.round(ctx.elapsedMs() * 100) / 100;
    if (!ctx.streamOpened) {
      ctx.streamOpened = true;
      openStreams.count += 1;
    }
    if (this.#events.length > 0 && ctx.firstEventMs === null) ctx.firstEventMs = ctx.elapsedMs();
  }

  /** Writes already-framed events (`data: …\n\n`). False means: wait for whenWritable. */
  write(events: string | Uint8Array): boolean {
    if (this.closed) return false;
    if (this.#ctx.firstEventMs === null) this.#ctx.firstEventMs = this.#ctx.elapsedMs();
    this.#events = events;
    SseWriter.#corked = this;
    this.#ctx.res.cork(SseWriter.#writeCorked);
    this.#events = '';
    return this.#wrote;
  }

  static readonly #writeCorked = (): void => {
    const writer = SseWriter.#corked;
    writer.#wrote = writer.#ctx.res.write(writer.#events);
  };

  whenWritable(resume: () => void): void {
    if (this.closed) return;
    this.#stalled = true;
    if (this.#stallTimer === null) this.#stallTimer = setTimeout(() => this.#cutOff(), this.#ctx.writeStallMs).unref();
    else this.#stallTimer.refresh();
    this.#ctx.res.onWritable(() => {
      this.#stalled = false;
      resume();
      return true;
    });
  }

  #cutOff(): void {
    if (!this.#stalled || this.closed) return;
    this.#ctx.errorCode = 'stream_stalled';
    this.#ctx.res.close(); // runs onAborted
  }

  /**
   * Ends the stream with `events` then `lastEvents`, in one corked write (one send). `headers`:
   * the stream was never opened, and its status and headers go first.
   */
  end(lastEvents = '', events: string | Uint8Array = '', headers: Readonly<Record<string, string>> | null = null): void {
    const ctx = this.#ctx;
    if (this.closed) return;
    ctx.finished = true;
    if (this.#stallTimer !== null) clearTimeout(this.#stallTimer);
    this.#headers = headers;
    this.#events = events;
    this.#lastEvents = lastEvents;
    SseWriter.#corked = this;
    ctx.res.cork(SseWriter.#endCorked);
    this.#events = '';
    this.#lastEvents = '';
  }

  static readonly #endCorked = (): void => {
    const writer = SseWriter.#corked;
    const ctx = writer.#ctx;
    if (writer.#headers !== null) writer.#begin();
    else if (writer.#events.length > 0 && ctx.firstEventMs === null) ctx.firstEventMs = ctx.elapsedMs();
    if (writer.#events.length > 0) ctx.res.write(writer.#events);
    ctx.res.end(writer.#lastEvents);
  };
}
