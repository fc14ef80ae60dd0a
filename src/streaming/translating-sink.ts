// An EventSink that passes chat events through a StreamTranslator on their way to the client.
// What it is given is whole SSE events (the engine's, or an upstream's as the relay filtered
// them): each `data:` payload is parsed and handed over; comments and other fields are dropped.
// Text-only chunks of a learned shape are handed over as bytes, unparsed (text-shape.ts), and what
// the translator makes is written as bytes (event-bytes.ts).
import { type EventBytes, sharedEventBytes } from './event-bytes.ts';
import type { EventSink } from './event-sink.ts';
import type { ChatChunk, StreamTranslator } from './stream-translator.ts';
import { onlyText, TextShape } from './text-shape.ts';

const decoder = new TextDecoder();
const LINE_FEED = 10;

export class TranslatingSink implements EventSink {
  readonly #writer: EventSink;
  readonly #translator: StreamTranslator;
  /** How this stream's text chunks look, once learned from one; see TextShape. */
  #shape: TextShape | null = null;
  /** A server whose chunks keep changing shape is not learned from forever. */
  #shapesLeft = 4;

  constructor(writer: EventSink, translator: StreamTranslator) {
    this.#writer = writer;
    this.#translator = translator;
  }

  get closed(): boolean {
    return this.#writer.closed;
  }

  open(headers: Readonly<Record<string, string>>, firstEvents: string | Uint8Array = ''): boolean {
    const out = sharedEventBytes;
    out.clear();
    this.#translate(firstEvents, out);
    const writable = this.#writer.open(headers, out.take());
    this.#translator.opened?.(this.#writer);
    return writable;
  }

  write(events: string | Uint8Array): boolean {
    const out = sharedEventBytes;
    out.clear();
    this.#translate(events, out);
    // Nothing to send (a chunk the protocol has no event for) is not a reason to wait.
    return out.length === 0 ? !this.closed : this.#writer.write(out.take());
  }

  whenWritable(resume: () => void): void {
    this.#writer.whenWritable(resume);
  }

  end(lastEvents = '', events: string | Uint8Array = '', headers: Readonly<Record<string, string>> | null = null): void {
    const out = sharedEventBytes;
    out.clear();
    this.#translate(events, out);
    this.#translate(lastEvents, out);
    this.#writer.end('', out.take(), headers);
  }

  #translate(events: string | Uint8Array, out: EventBytes): void {
    if (events.length === 0) return;
    const bytes = typeof events === 'string' ? Buffer.from(events) : events;
    for (let at = 0; at < bytes.length;) {
      const shape = this.#shape;
      if (shape !== null) {
        const close = shape.closingQuote(bytes, at);
        if (close !== -1) {
          this.#translator.textBytes!(out, bytes, shape.literalStart(at), close + 1);
          at = close + shape.tailLength;
          continue;
        }
      }
      const end = blankLine(bytes, at);
      const event = decoder.decode(bytes.subarray(at, end));
      // Events of one `data: …` line each (what servers usually send) are read in place; any other
      // shape goes through the general reader.
      if (event.startsWith('data: ') && !event.includes('\n') && !event.endsWith('\r')) this.#payload(event.slice(6), out);
      else for (const payload of dataPayloads(event)) this.#payload(payload, out);
      at = end + 2;
    }
  }

  #payload(payload: string, out: EventBytes): void {
    const translator = this.#translator;
    if (payload === '[DONE]') return out.text(translator.done());
    let chunk: ChatChunk;
    try {
      chunk = JSON.parse(payload) as ChatChunk;
    } catch {
      return out.text(translator.failed({ message: 'The model server sent an event that is not JSON.', code: 'upstream_error' }));
    }
    if (chunk.error != null) return out.text(translator.failed(chunk.error));
    if (this.#shapesLeft > 0 && translator.textBytes !== undefined && onlyText(chunk) !== null) {
      this.#shapesLeft--;
      this.#shape = TextShape.learn(payload) ?? this.#shape;
    }
    out.text(translator.chunk(chunk));
  }
}

/** Where the blank line that ends the event at `from` begins; the end of `bytes` when there is none. */
function blankLine(bytes: Uint8Array, from: number): number {
  for (let at = bytes.indexOf(LINE_FEED, from); at !== -1; at = bytes.indexOf(LINE_FEED, at + 1)) {
    if (bytes[at + 1] === LINE_FEED) return at;
  }
  return bytes.length;
}

/** The data of each event in `text` (whole events), its `data:` lines joined by newlines. */
export function dataPayloads(text: string): string[] {
  const payloads: string[] = [];
  let data: string | null = null;
  let at = 0;
  while (at < text.length) {
    let end = text.indexOf('\n', at);
    if (end === -1) end = text.length;
    let line = text.slice(at, end);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    at = end + 1;
    if (line === '') {
      if (data !== null) payloads.push(data);
      data = null;
    } else if (line.startsWith('data:')) {
      const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
      data = data === null ? value : `${data}\n${value}`;
    }
  }
  if (data !== null) payloads.push(data);
  return payloads;
}
