// An EventSink that passes chat events through a StreamTranslator on their way to the client.
// What it is given is whole SSE events (the engine's, or an upstream's as the relay filtered
// them): each `data:` payload is parsed and handed over; comments and other fields are dropped.
import type { EventSink } from './event-sink.ts';
import type { ChatChunk, StreamTranslator } from './stream-translator.ts';

const decoder = new TextDecoder();

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
    // Events of one `data: …` line each (the engine's, and what servers usually send) are read in
    // place; any other shape goes through the general reader.
    for (let at = 0; at < text.length;) {
      let end = text.indexOf('\n\n', at);
      if (end === -1) end = text.length;
      const lineEnd = text.indexOf('\n', at);
      if (text.startsWith('data: ', at) && lineEnd === end && text.charCodeAt(end - 1) !== 13) out += this.#payload(text.slice(at + 6, end));
      else for (const payload of dataPayloads(text.slice(at, end + 2))) out += this.#payload(payload);
      at = end + 2;
    }
    return out;
  }

  #payload(payload: string): string {
    const translator = this.#translator;
    if (this.#shape !== null) {
      const literal = this.#shape.literalOf(payload);
      if (literal !== null) return translator.text!(literal);
    }
    if (payload === '[DONE]') return translator.done();
    let chunk: ChatChunk;
    try {
      chunk = JSON.parse(payload) as ChatChunk;
    } catch {
      return translator.failed({ message: 'The model server sent an event that is not JSON.', code: 'upstream_error' });
    }
    if (chunk.error != null) return translator.failed(chunk.error);
    if (this.#shapesLeft > 0 && translator.text !== undefined && onlyText(chunk) !== null) {
      this.#shapesLeft--;
      this.#shape = TextShape.learn(payload) ?? this.#shape;
    }
    return translator.chunk(chunk);
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

const CONTENT_KEY = '"content":';

/**
 * Where a chunk's content string sits: the bytes before and after it. The chunks of one stream that
 * carry only text differ only there (same id, model, choice), so a chunk that starts and ends as
 * a learned one is read without parsing it.
 */
export class TextShape {
  readonly #head: string;
  readonly #tail: string;

  private constructor(head: string, tail: string) {
    this.#head = head;
    this.#tail = tail;
  }

  /** The shape of a chunk known (parsed) to carry only the text of its one choice; null if not found. */
  static learn(payload: string): TextShape | null {
    const key = payload.indexOf(CONTENT_KEY);
    if (key === -1 || payload.indexOf(CONTENT_KEY, key + 1) !== -1) return null;
    let at = key + CONTENT_KEY.length;
    while (payload.charCodeAt(at) === 32) at++;
    if (payload.charCodeAt(at) !== 34) return null;
    const close = closingQuote(payload, at + 1);
    return close === -1 ? null : new TextShape(payload.slice(0, at + 1), payload.slice(close));
  }

  /** The text of a chunk of this shape as its JSON string literal (quotes included), or null when it is not one. */
  literalOf(payload: string): string | null {
    const head = this.#head;
    const tail = this.#tail;
    if (payload.length < head.length + tail.length || !payload.startsWith(head) || !payload.endsWith(tail)) return null;
    const end = payload.length - tail.length;
    // The string must close exactly where the tail begins.
    if (closingQuote(payload, head.length) !== end) return null;
    return payload.slice(head.length - 1, end + 1);
  }
}

/** The index of the quote that closes the JSON string whose text begins at `from`; -1 if none. */
function closingQuote(text: string, from: number): number {
  for (let at = from; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 92) at++;
    else if (code === 34) return at;
  }
  return -1;
}

/** The chunk carries the text of its one choice and nothing else a translator reads. */
export function onlyText(chunk: ChatChunk): string | null {
  if (chunk.usage != null || chunk.error != null || chunk.choices?.length !== 1) return null;
  const choice = chunk.choices[0]!;
  if (choice.index !== 0 || choice.finish_reason != null) return null;
  const delta = choice.delta;
  if (delta === undefined || typeof delta.content !== 'string' || delta.content === '' || delta.tool_calls !== undefined || delta.refusal != null) return null;
  return delta.content;
}
