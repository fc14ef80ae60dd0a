// The events of one translated write, built as bytes: pre-encoded pieces, numbers spelled in place
// and ranges of the chat events they translate, so that a text delta is neither decoded, built as a
// string nor encoded again by uWS. One buffer serves every stream: uWS copies what write() is given
// before it returns (as byte-batch.ts relies on), so take() hands over a view that is valid only
// until the next write begins.
import { OutputBuffer } from '../http/output-buffer.ts';

/** Below this, a range is copied byte by byte: a view for set() costs more than the loop. */
const LOOP_COPY_MAX = 64;

export class EventBytes {
  readonly #out = new OutputBuffer(64 * 1024, 4096);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  /** Appends pre-encoded bytes. */
  piece(bytes: Uint8Array): void {
    this.#room(bytes.length).set(bytes, this.#length);
    this.#length += bytes.length;
  }

  /** Appends `source` from `start` to `end`. */
  range(source: Uint8Array, start: number, end: number): void {
    const length = end - start;
    const target = this.#room(length);
    let at = this.#length;
    if (length > LOOP_COPY_MAX) target.set(source.subarray(start, end), at);
    else for (let index = start; index < end; index++) target[at++] = source[index]!;
    this.#length += length;
  }

  /** Appends a non-negative integer in decimal. */
  decimal(value: number): void {
    let digits = 1;
    for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    const target = this.#room(digits);
    let at = this.#length + digits;
    this.#length = at;
    let rest = value;
    do {
      target[--at] = 48 + (rest % 10);
      rest = Math.floor(rest / 10);
    } while (rest > 0);
  }

  /** Appends a string as UTF-8. */
  text(value: string): void {
    if (value.length === 0) return;
    const target = this.#room(value.length * 3);
    this.#length += target.write(value, this.#length, 'utf8');
  }

  clear(): void {
    this.#length = 0;
  }

  /** What was appended, as one view, and the builder emptied. */
  take(): Uint8Array {
    const length = this.#length;
    this.#length = 0;
    return this.#out.prefix(length);
  }

  #room(bytes: number): Buffer {
    const needed = this.#length + bytes;
    if (needed > this.#out.bytes.length) this.#out.grow(needed, this.#length);
    return this.#out.bytes;
  }
}

/** The builder every translated stream writes through (see the header: one write at a time). */
export const sharedEventBytes = new EventBytes();

export function encoded(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}
