// A stream's events recorded as they are written to the client, for the response cache.
import type { ReplyRecorder } from '../http/request-context.ts';
import type { EventSink } from './event-sink.ts';

/** An event sink that records what it passes on, in the order written. */
export class RecordingSink implements EventSink {
  readonly #sink: EventSink;
  readonly #fill: ReplyRecorder;

  constructor(sink: EventSink, fill: ReplyRecorder) {
    this.#sink = sink;
    this.#fill = fill;
  }

  get closed(): boolean {
    return this.#sink.closed;
  }

  open(headers: Readonly<Record<string, string>>, firstEvents?: string | Uint8Array): boolean {
    if (firstEvents !== undefined && !this.#sink.closed) this.#fill.record(firstEvents);
    return this.#sink.open(headers, firstEvents);
  }

  write(events: string | Uint8Array): boolean {
    if (!this.#sink.closed) this.#fill.record(events);
    return this.#sink.write(events);
  }

  whenWritable(resume: () => void): void {
    this.#sink.whenWritable(resume);
  }

  end(lastEvents?: string, events?: string | Uint8Array, headers?: Readonly<Record<string, string>> | null): void {
    if (!this.#sink.closed) {
      if (events !== undefined) this.#fill.record(events);
      if (lastEvents !== undefined) this.#fill.record(lastEvents);
      this.#fill.streamEnded();
    }
    this.#sink.end(lastEvents, events, headers);
  }
}
