// Log lines written straight into a batch buffer, in order, and handed to the destination as
// regions of it: no Buffer per line, and the per-request line is serialised field by field without
// building an object (observability/request-log.ts). A handed-over region is never written again,
// so the destination may keep it until its write is done.

/** Takes a region of lines; may keep it (it is never written again). */
export type LineSink = (lines: Buffer) => void;

const CHUNK_BYTES = 64 * 1024;

// Short fields are copied byte by byte in JS: Buffer#write is a call into C++, which costs more than
// copying the few dozen characters a field has (measured: the request line's ~22 writes).
const SHORT_FIELD = 64;

/** Text known to need no escaping, encoded once (a line's keys and punctuation). */
export function rawBytes(text: string): Uint8Array {
  return Buffer.from(text, 'latin1');
}

export class LogLines {
  readonly #sink: LineSink;
  /** Hand each line over at once (a stream destination in tests) rather than a batch at a time. */
  readonly #eachLine: boolean;
  #chunk: Buffer;
  /** Written up to here; what lies between #handed and #offset waits for the next handOver(). */
  #offset = 0;
  #handed = 0;

  constructor(sink: LineSink, options: { eachLine?: boolean } = {}) {
    this.#sink = sink;
    this.#eachLine = options.eachLine ?? false;
    this.#chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  }

  /** Lines wait to be handed over. */
  get pending(): boolean {
    return this.#offset > this.#handed;
  }

  /** A line already serialised (pino's), newline included. */
  appendLine(line: string): void {
    this.begin(line.length * 3);
    this.#offset += this.#chunk.write(line, this.#offset, 'utf8');
    this.end();
  }

  /** Starts a line of at most `maxBytes`. */
  begin(maxBytes: number): void {
    if (this.#chunk.length - this.#offset >= maxBytes) return;
    this.handOver();
    this.#chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, maxBytes));
    this.#offset = 0;
    this.#handed = 0;
  }

  /** Text known to need no escaping (keys, punctuation, numbers). */
  raw(text: string): void {
    if (text.length > SHORT_FIELD) {
      this.#offset += this.#chunk.write(text, this.#offset, 'latin1');
      return;
    }
    const chunk = this.#chunk;
    let at = this.#offset;
    for (let index = 0; index < text.length; index++) chunk[at++] = text.charCodeAt(index);
    this.#offset = at;
  }

  /** Bytes from rawBytes(). */
  bytes(bytes: Uint8Array): void {
    this.#chunk.set(bytes, this.#offset);
    this.#offset += bytes.length;
  }

  /**
   * A JSON string value. Plain printable ASCII is copied as it is; a string with a quote, a
   * backslash, a control character or anything beyond ASCII (rare in these fields) is written as
   * JSON.stringify writes it, over what the copy had begun.
   */
  string(text: string): void {
    const chunk = this.#chunk;
    const start = this.#offset;
    if (text.length <= SHORT_FIELD) {
      let at = start;
      chunk[at++] = 0x22;
      let index = 0;
      for (; index < text.length; index++) {
        const code = text.charCodeAt(index);
        if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) break;
        chunk[at++] = code;
      }
      if (index === text.length) {
        chunk[at++] = 0x22;
        this.#offset = at;
        return;
      }
    }
    this.#offset = start + chunk.write(JSON.stringify(text), start, 'utf8');
  }

  /** A JSON number; null when it is not finite (as JSON.stringify writes it). Integers are written digit by digit. */
  number(value: number | null): void {
    if (value === null || !Number.isFinite(value)) {
      this.raw('null');
      return;
    }
    if (!Number.isSafeInteger(value) || value < 0) {
      this.raw(String(value));
      return;
    }
    this.#offset = writeDecimal(this.#chunk, this.#offset, value);
  }

  /**
   * A JSON number rounded to hundredths, as JSON.stringify(Math.round(value * 100) / 100) writes it
   * (e.g. 12, 12.5, 12.05), without making the string.
   */
  hundredths(value: number): void {
    const cents = Math.round(value * 100);
    if (!Number.isSafeInteger(cents) || cents < 0) {
      this.number(cents / 100);
      return;
    }
    this.number(Math.floor(cents / 100));
    const fraction = cents % 100;
    if (fraction === 0) return;
    const chunk = this.#chunk;
    chunk[this.#offset++] = 0x2e;
    chunk[this.#offset++] = 0x30 + Math.floor(fraction / 10);
    if (fraction % 10 !== 0) chunk[this.#offset++] = 0x30 + (fraction % 10);
  }

  /** A JSON string value or null. */
  stringOrNull(text: string | null): void {
    if (text === null) this.raw('null');
    else this.string(text);
  }

  /** Ends a line begun with begin(). */
  end(): void {
    if (this.#eachLine) this.handOver();
  }

  /** Hands what was written since the last hand-over to the destination. */
  handOver(): void {
    if (this.#offset === this.#handed) return;
    const region = this.#chunk.subarray(this.#handed, this.#offset);
    this.#handed = this.#offset;
    this.#sink(region);
  }
}

/**
 * Writes the decimal digits of `value`, a non-negative safe integer, into `bytes` at `at`, without
 * making its string; returns where they end. The caller has made room (16 bytes at most). Digits
 * come from 32-bit integer division, which V8 turns into a multiplication: dividing doubles took
 * over three times as long (11 typical numbers: 450–470 → 126–139 ns). A larger value (a timestamp) is
 * written as its leading digits, then its last nine.
 */
export function writeDecimal(bytes: Uint8Array, at: number, value: number): number {
  if (value <= INT32_MAX) return writeDigits(bytes, at, value | 0, digitCount(value | 0));
  const high = Math.floor(value / 1e9);
  return writeDigits(bytes, writeDecimal(bytes, at, high), value - high * 1e9, 9);
}

const INT32_MAX = 0x7fffffff;

/** How many digits writeDecimal() writes for `value`. */
export function decimalLength(value: number): number {
  return value <= INT32_MAX ? digitCount(value | 0) : decimalLength(Math.floor(value / 1e9)) + 9;
}

function digitCount(value: number): number {
  if (value < 100000) return value < 10 ? 1 : value < 100 ? 2 : value < 1000 ? 3 : value < 10000 ? 4 : 5;
  return value < 1000000 ? 6 : value < 10000000 ? 7 : value < 100000000 ? 8 : value < 1000000000 ? 9 : 10;
}

/** The last `digits` decimal digits of `value` (below 2^31), zeros in front when it has fewer. */
function writeDigits(bytes: Uint8Array, at: number, value: number, digits: number): number {
  const end = at + digits;
  let rest = value | 0;
  for (let position = end - 1; position >= at; position--) {
    const next = (rest / 10) | 0;
    bytes[position] = 0x30 + rest - next * 10;
    rest = next;
  }
  return end;
}

/** The most bytes a string field can take once escaped (\uXXXX per UTF-16 unit, quotes). */
export function fieldBytes(text: string | null): number {
  return text === null ? 4 : text.length * 6 + 2;
}
