// An EventSink that passes chat events through a StreamTranslator on their way to the client.
// What it is given is whole SSE events (the engine's, or an upstream's as the relay filtered
// them): each `data:` payload is parsed and handed over; comments and other fields are dropped.
import { contentLiteral } from './content-literal.ts';
import type { EventSink } from './event-sink.ts';
import type { SseWriter } from './sse-writer.ts';
import type { ChatChunk, StreamTranslator } from './stream-translator.ts';

const decoder = new TextDecoder();

export class TranslatingSink implements EventSink {
  readonly #writer: SseWriter;
  readonly #translator: StreamTranslator;

  constructor(writer: SseWriter, translator: StreamTranslator) {
    this.#writer = writer;
    this.#translator = translator;
  }

  get closed(): boolean {
    return this.#writer.closed;
  }

  open(headers: Readonly<Record<string, string>>, firstEvents: string | Uint8Array = ''): boolean {
    const writable = this.#writer.open(headers, this.#translate(firstEvents));
    this.#translator.opened?.(this.#writer);
    return writable;
  }

  write(events: string | Uint8Array): boolean {
    const translated = this.#translate(events);
    // Nothing to send (a chunk the protocol has no event for) is not a reason to wait.
    return translated === '' ? !this.closed : this.#writer.write(translated);
  }

  whenWritable(resume: () => void): void {
    this.#writer.whenWritable(resume);
  }

  end(lastEvents = '', events: string | Uint8Array = '', headers: Readonly<Record<string, string>> | null = null): void {
    const translated = this.#translate(events) + this.#translate(lastEvents);
    this.#writer.end(translated, '', headers);
  }

  #translate(events: string | Uint8Array): string {
    if (events.length === 0) return '';
    const text = typeof events === 'string' ? events : decoder.decode(events);
    let out = '';
    for (const payload of dataPayloads(text)) out += this.#payload(payload);
    return out;
  }

  #payload(payload: string): string {
    if (payload === '[DONE]') return this.#translator.done();
    if (this.#translator.text !== undefined) {
      const literal = contentLiteral(payload);
      if (literal !== null) return this.#translator.text(literal);
    }
    let chunk: ChatChunk;
    try {
      chunk = JSON.parse(payload) as ChatChunk;
    } catch {
      return this.#translator.failed({ message: 'The model server sent an event that is not JSON.', code: 'upstream_error' });
    }
    if (chunk.error !== undefined && chunk.error !== null) return this.#translator.failed(chunk.error);
    return this.#translator.chunk(chunk);
  }
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
