// A reply as it was sent, kept as bytes with where its `id` and time values sit, so that a hit is
// one copy and a few byte writes: no JSON is parsed or made. The values are found once, when the
// reply is stored: the first `"id":"…"` names the completion (the Response, the Message), and each
// later `"id":"<that id>"` (every chunk or event of a stream) is patched; tool-call and output-item
// ids are other values and stay as they were. The times are `created` (chat) and `created_at` and
// `completed_at` (a Response): each becomes the time of the replay.
import { OutputBuffer } from '../http/output-buffer.ts';
import { decimalLength, writeDecimal } from '../observability/log-lines.ts';
import { drawRandom, randomPool } from '../streaming/random-pool.ts';

export type ReplyForm = 'json' | 'stream';

export interface CachedReply {
  readonly form: ReplyForm;
  readonly bytes: Buffer;
  /** Where each copy of the completion's id starts in `bytes`. */
  readonly idAt: readonly number[];
  /** The id's characters kept on replay (`chatcmpl-`), then random ones up to its length. */
  readonly idPrefixLength: number;
  readonly idLength: number;
  /** Where each time value (`created`, `created_at`, `completed_at`) starts; its length is `createdLength`. */
  readonly createdAt: readonly number[];
  readonly createdLength: number;
  /** It holds the reply's usage (a JSON `usage` object, a stream's usage chunk): cross-form replay needs it. */
  readonly usage: boolean;
  /** The account and key whose request filled it: purges pick entries by them. */
  readonly accountId: string;
  readonly keyId: string;
}

const ID_FIELD = Buffer.from('"id":"');
const TIME_FIELDS = ['"created":', '"created_at":', '"completed_at":'].map((field) => Buffer.from(field));
const QUOTE = 0x22;
// Inside a JSON string its quotes would be escaped: only the field itself matches.
const USAGE_OBJECT = Buffer.from('"usage":{');

/** The reply's bytes with its id and created values located. */
export function cachedReply(form: ReplyForm, bytes: Buffer, accountId: string, keyId: string): CachedReply {
  const idStart = bytes.indexOf(ID_FIELD);
  let idAt: number[] = [];
  let idLength = 0;
  let idPrefixLength = 0;
  if (idStart >= 0) {
    const valueStart = idStart + ID_FIELD.length;
    const valueEnd = bytes.indexOf(QUOTE, valueStart);
    if (valueEnd > valueStart) {
      const id = bytes.subarray(valueStart, valueEnd).toString('latin1');
      idLength = id.length;
      // Up to the first separator (`chatcmpl-`, `resp_`): the random part after it may hold more.
      idPrefixLength = id.search(/[-_]/) + 1;
      idAt = occurrences(bytes, Buffer.from(`"id":"${id}"`), ID_FIELD.length);
    }
  }
  // Every time value of the first one's width (a `null` or a value of another width stays as it was).
  const createdAt: number[] = [];
  let createdLength = 0;
  for (const field of TIME_FIELDS) {
    for (const at of occurrences(bytes, field, field.length)) {
      const length = digitsAt(bytes, at);
      if (length === 0) continue;
      if (createdLength === 0) createdLength = length;
      if (length === createdLength) createdAt.push(at);
    }
  }
  return { form, bytes, idAt, idPrefixLength, idLength, createdAt, createdLength, usage: bytes.includes(USAGE_OBJECT), accountId, keyId };
}

/**
 * Replays are written into one buffer shared by every hit: uWS copies what it is given before its
 * call returns, so the buffer is free again at once (as stream writes share one, byte-batch.ts).
 * A buffer of its own per hit was a slice of Node's pool for a JSON reply, and ~4 µs of allocating
 * for a 100-chunk stream's 20 KB. A reply larger than the cap gets a buffer of its own.
 */
const sharedReplay = new OutputBuffer(64 * 1024, 4096);
const SHARED_REPLAY_MAX_BYTES = 1024 * 1024;

/**
 * The reply with a fresh id and `created` (now), in bytes valid until the next replay: written
 * out at once, never kept.
 */
export function replay(reply: CachedReply, nowSeconds = Math.floor(Date.now() / 1000)): Buffer {
  const { length } = reply.bytes;
  const shared = length <= SHARED_REPLAY_MAX_BYTES;
  if (shared && length > sharedReplay.bytes.length) sharedReplay.grow(length);
  const out = shared ? sharedReplay.bytes : Buffer.allocUnsafeSlow(length);
  reply.bytes.copy(out);
  const { idAt, createdAt } = reply;
  const tailLength = reply.idLength - reply.idPrefixLength;
  if (idAt.length > 0 && tailLength > 0) {
    spellRandomTail(out, idAt[0]! + reply.idPrefixLength, tailLength);
    copyFirst(out, idAt, reply.idPrefixLength, tailLength);
  }
  // A `created` of another width (not before the year 2286) is left as it was.
  if (createdAt.length > 0 && decimalLength(nowSeconds) === reply.createdLength) {
    writeDecimal(out, createdAt[0]!, nowSeconds);
    copyFirst(out, createdAt, 0, reply.createdLength);
  }
  return shared ? sharedReplay.prefix(length) : out;
}

/**
 * Copies the `length` bytes at the first of `places` (plus `offset`) to each other place: a stream
 * has its id and its time once per chunk, and set() from one view of them costs the least per copy.
 */
function copyFirst(out: Buffer, places: readonly number[], offset: number, length: number): void {
  if (places.length < 2) return;
  const first = places[0]! + offset;
  const value = out.subarray(first, first + length);
  for (let index = 1; index < places.length; index++) out.set(value, places[index]! + offset);
}

/** Where each copy of `field` starts, plus `skip` (the start of its value). */
function occurrences(bytes: Buffer, field: Buffer, skip: number): number[] {
  const found: number[] = [];
  for (let at = bytes.indexOf(field); at >= 0; at = bytes.indexOf(field, at + field.length)) found.push(at + skip);
  return found;
}

function digitsAt(bytes: Buffer, start: number): number {
  let end = start;
  while (end < bytes.length && bytes[end]! >= 0x30 && bytes[end]! <= 0x39) end++;
  return end - start;
}

const ALPHABET = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 'latin1');

/** Random bytes drawn at once: an id's tail is far shorter, but an upstream's id may be of any length. */
const MAX_DRAW = 256;

/** `length` random letters and digits written into `out` at `start`. */
function spellRandomTail(out: Buffer, start: number, length: number): void {
  for (let done = 0; done < length; done += MAX_DRAW) {
    const count = Math.min(MAX_DRAW, length - done);
    const from = drawRandom(count);
    for (let index = 0; index < count; index++) out[start + done + index] = ALPHABET[randomPool[from + index]! % ALPHABET.length]!;
  }
}

/** The bytes a reply adds to its store, for the byte caps. */
export function replySize(reply: CachedReply): number {
  return reply.bytes.length + 8 * (reply.idAt.length + reply.createdAt.length) + 128;
}
