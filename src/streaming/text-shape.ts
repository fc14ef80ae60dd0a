// How a stream's text-only chat chunks look on the wire. The chunks of one stream that carry only
// text differ only in their content string (same id, model, choice), so once one has been parsed,
// an event whose bytes start and end as that one's is read without decoding or parsing it: its
// text is handed on as the bytes of its JSON string literal.
import type { ChatChunk } from './stream-translator.ts';

const CONTENT_KEY = '"content":';
const QUOTE = 34;
const BACKSLASH = 92;
const LINE_FEED = 10;

export class TextShape {
  /** `data: `, then the payload up to and including the quote that opens the text. */
  readonly #head: Buffer;
  /** From the quote that closes the text to the blank line that ends the event. */
  readonly #tail: Buffer;

  private constructor(head: string, tail: string) {
    this.#head = Buffer.from(`data: ${head}`);
    this.#tail = Buffer.from(`${tail}\n\n`);
  }

  /** The shape of a one-line event whose payload is known (parsed) to carry only its one choice's text; null if not found. */
  static learn(payload: string): TextShape | null {
    const key = payload.indexOf(CONTENT_KEY);
    if (key === -1 || payload.indexOf(CONTENT_KEY, key + 1) !== -1) return null;
    let at = key + CONTENT_KEY.length;
    while (payload.charCodeAt(at) === 32) at++;
    if (payload.charCodeAt(at) !== QUOTE) return null;
    for (let close = at + 1; close < payload.length; close++) {
      const code = payload.charCodeAt(close);
      if (code === BACKSLASH) close++;
      else if (code === QUOTE) return new TextShape(payload.slice(0, at + 1), payload.slice(close));
    }
    return null;
  }

  /**
   * When the event at `at` in `bytes` is one of this shape: the index of the quote that closes its
   * text (the literal runs from `literalStart(at)` to it, inclusive; the event ends `tailLength`
   * bytes later). -1 when it is not one.
   */
  closingQuote(bytes: Uint8Array, at: number): number {
    const head = this.#head;
    const tail = this.#tail;
    const headEnd = at + head.length;
    if (headEnd + tail.length > bytes.length) return -1;
    for (let index = 0; index < head.length; index++) if (bytes[at + index] !== head[index]) return -1;
    let close = headEnd;
    for (; close < bytes.length; close++) {
      const byte = bytes[close]!;
      if (byte === QUOTE) break;
      if (byte === BACKSLASH) close++;
      else if (byte === LINE_FEED) return -1;
    }
    if (close + tail.length > bytes.length) return -1;
    for (let index = 0; index < tail.length; index++) if (bytes[close + index] !== tail[index]) return -1;
    return close;
  }

  /** Where the literal (its opening quote) of the event at `at` begins. */
  literalStart(at: number): number {
    return at + this.#head.length - 1;
  }

  get tailLength(): number {
    return this.#tail.length;
  }
}

/** The chunk carries the text of its one choice and nothing else a translator reads. */
export function onlyText(chunk: ChatChunk): string | null {
  if (chunk.usage != null || chunk.error != null || chunk.choices?.length !== 1) return null;
  const choice = chunk.choices[0]!;
  if (choice.index !== 0 || choice.finish_reason != null) return null;
  const delta = choice.delta;
  if (delta === undefined || typeof delta.content !== 'string' || delta.content === '' || delta.tool_calls !== undefined || delta.refusal != null) return null;
  if (reasoningOf(delta) !== null) return null;
  return delta.content;
}

/** The reasoning text a chunk's delta (or a completion's message) carries, under either name; null when none. */
export function reasoningOf(delta: { readonly reasoning?: unknown; readonly reasoning_content?: unknown }): string | null {
  const reasoning = delta.reasoning ?? delta.reasoning_content;
  return typeof reasoning === 'string' && reasoning !== '' ? reasoning : null;
}
