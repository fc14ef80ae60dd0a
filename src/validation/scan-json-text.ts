import { ApiError } from '../errors/api-error.ts';
import { appendIndex, appendKey, toParam } from './param-path.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

// A double overflows to Infinity only past ~1.8e308: a number token needs an exponent or
// at least 309 digits for that, so every other number skips the Number() call.
const MAX_PLAIN_NUMBER_CHARS = 308;

/**
 * One linear pass over JSON text, before JSON.parse, for what JSON.parse does not check:
 * nesting depth, duplicate keys (JSON.parse keeps the last, a relay may read the first),
 * `__proto__` and `constructor.prototype` keys (prototype poisoning once merged), and numbers
 * that overflow to Infinity (JSON.stringify would forward them as `null`).
 *
 * It tracks structure only; whatever else is malformed is left for JSON.parse to reject.
 * It is iterative so that hostile nesting cannot overflow the stack. Keys are compared
 * decoded: `"\u005f_proto__"` is `__proto__`. Throws ApiError.
 */
export function scanJsonText(text: string, maxDepth: number): RootSpans {
  SCANNER.scan(text, maxDepth);
  return SCANNER;
}

/**
 * Where a root object's `model` and `stream_options` values lie in the text (start at their first
 * character, end past their last; -1 when absent or not a string and an object respectively), and
 * its closing brace: what a relay splices. Valid for text that JSON.parse then accepts, until the
 * next scan.
 */
export interface RootSpans {
  readonly modelStart: number;
  readonly modelEnd: number;
  readonly streamOptionsStart: number;
  readonly streamOptionsEnd: number;
  readonly closingBrace: number;
}

// What the value after a root key is to the spans.
const OTHER_VALUE = 0;
const MODEL_VALUE = 1;
const STREAM_OPTIONS_VALUE = 2;

// Keys of one object are checked for repeats by a linear search up to this many, past it the
// object gets a Set: most chat-body objects have 1–12 keys, and this spares a Set per object.
const LINEAR_KEY_LIMIT = 16;

/** Reused across calls (scanning is synchronous), so a scan allocates almost nothing. */
class JsonScanner {
  text = '';
  maxDepth = 0;
  depth = 0;
  expectKey = false;
  // Per nesting level (1 = the root container):
  isObject = new Uint8Array(0);
  isConstructorValue = new Uint8Array(0);
  index = new Int32Array(0);
  // Per level, its last key, kept as the open keys below are (lastKeyStart -1: none yet).
  lastKeyStart = new Int32Array(0);
  lastKeyEnd = new Int32Array(0);
  lastKeyDecoded: (string | null)[] = [];
  firstKeyAt = new Int32Array(0);
  seenKeys: (Set<string> | null)[] = [];
  // The keys of every open object, innermost last; level l's keys start at firstKeyAt[l]. A key is
  // its span in the text, between its quotes, and its decoded text only if it has escapes: most
  // keys are never copied out of the text. A level holds at most LINEAR_KEY_LIMIT of them.
  keyStart = new Int32Array(0);
  keyEnd = new Int32Array(0);
  keyDecoded: (string | null)[] = [];
  keyCount = 0;
  // How far this scan reached, so that release() clears only what it may have filled.
  deepest = 0;
  keysHighWater = 0;
  // The root spans (RootSpans), and what the value after the last root key is.
  modelStart = -1;
  modelEnd = -1;
  streamOptionsStart = -1;
  streamOptionsEnd = -1;
  closingBrace = -1;
  rootValue = OTHER_VALUE;

  scan(text: string, maxDepth: number): void {
    if (maxDepth !== this.maxDepth) this.resize(maxDepth);
    this.text = text;
    this.depth = 0;
    this.expectKey = false;
    this.keyCount = 0;
    this.deepest = 0;
    this.keysHighWater = 0;
    this.modelStart = -1;
    this.modelEnd = -1;
    this.streamOptionsStart = -1;
    this.streamOptionsEnd = -1;
    this.closingBrace = -1;
    this.rootValue = OTHER_VALUE;
    try {
      this.run();
    } finally {
      this.release();
    }
  }

  /** The keys a scan made strings of (sliced ones keep all the text alive) must not outlive it. */
  private release(): void {
    this.text = '';
    this.keyDecoded.fill(null, 0, this.keysHighWater);
    this.lastKeyDecoded.fill(null, 0, this.deepest + 1);
    this.seenKeys.fill(null, 0, this.deepest + 1);
  }

  private resize(maxDepth: number): void {
    const levels = maxDepth + 1;
    this.maxDepth = maxDepth;
    this.isObject = new Uint8Array(levels);
    this.isConstructorValue = new Uint8Array(levels);
    this.index = new Int32Array(levels);
    this.firstKeyAt = new Int32Array(levels);
    this.lastKeyStart = new Int32Array(levels);
    this.lastKeyEnd = new Int32Array(levels);
    this.lastKeyDecoded = new Array<string | null>(levels).fill(null);
    this.seenKeys = new Array<Set<string> | null>(levels).fill(null);
    this.keyStart = new Int32Array(levels * LINEAR_KEY_LIMIT);
    this.keyEnd = new Int32Array(levels * LINEAR_KEY_LIMIT);
    this.keyDecoded = new Array<string | null>(levels * LINEAR_KEY_LIMIT).fill(null);
  }

  private run(): void {
    const text = this.text;
    const length = text.length;
    let i = 0;
    while (i < length) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        i = this.string(i);
        continue;
      }
      if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) {
        i = this.number(i);
        continue;
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) this.open(c === OPEN_OBJECT, i);
      else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) this.close(c === CLOSE_OBJECT, i);
      else if (c === COMMA) this.comma();
      i++;
    }
  }

  private open(isObject: boolean, at: number): void {
    const parent = this.depth;
    if (parent === this.maxDepth) throw new ApiError('nesting_too_deep');
    if (parent === 1) {
      if (this.rootValue === STREAM_OPTIONS_VALUE && isObject) this.streamOptionsStart = at;
      this.rootValue = OTHER_VALUE;
    }
    const level = parent + 1;
    this.depth = level;
    if (level > this.deepest) this.deepest = level;
    this.isObject[level] = isObject ? 1 : 0;
    const underConstructor = this.isObject[parent] === 1 && this.lastKeyStart[parent] !== -1 && this.lastKeyIs(parent, 'constructor');
    this.isConstructorValue[level] = isObject && underConstructor ? 1 : 0;
    this.lastKeyStart[level] = -1;
    this.lastKeyDecoded[level] = null;
    this.index[level] = 0;
    this.firstKeyAt[level] = this.keyCount;
    this.seenKeys[level] = null;
    this.expectKey = isObject;
  }

  private close(isObject: boolean, at: number): void {
    const level = this.depth;
    if (level === 0 || this.isObject[level] !== (isObject ? 1 : 0)) throw new ApiError('invalid_json');
    if (level === 1) this.closingBrace = at;
    else if (level === 2 && this.streamOptionsStart !== -1 && this.streamOptionsEnd === -1) this.streamOptionsEnd = at + 1;
    if (isObject) {
      this.keyCount = this.firstKeyAt[level] ?? 0;
      this.seenKeys[level] = null;
    }
    this.depth = level - 1;
    this.expectKey = false;
  }

  private comma(): void {
    const level = this.depth;
    if (level === 0) return;
    if (this.isObject[level] === 1) this.expectKey = true;
    else this.index[level] = (this.index[level] ?? 0) + 1;
  }

  /** Returns the position after the closing quote. */
  private string(start: number): number {
    const text = this.text;
    let end = text.indexOf('"', start + 1);
    while (end !== -1 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
    if (end === -1) throw new ApiError('invalid_json');
    if (this.expectKey) {
      this.expectKey = false;
      this.key(start + 1, end);
    } else if (this.depth === 1) {
      if (this.rootValue === MODEL_VALUE) {
        this.modelStart = start;
        this.modelEnd = end + 1;
      }
      this.rootValue = OTHER_VALUE;
    }
    return end + 1;
  }

  /** The key between `start` and `end` (its quotes excluded). */
  private key(start: number, end: number): void {
    const text = this.text;
    const decoded = hasEscape(text, start, end) ? decodeKey(text.slice(start, end)) : null;
    const level = this.depth;
    this.lastKeyStart[level] = start;
    this.lastKeyEnd[level] = end;
    this.lastKeyDecoded[level] = decoded;
    if (this.lastKeyIs(level, '__proto__') || (this.isConstructorValue[level] === 1 && this.lastKeyIs(level, 'prototype'))) {
      throw new ApiError('forbidden_key', { param: this.pathTo(level), message: 'The request body uses a reserved key (__proto__ or constructor.prototype).' });
    }
    if (this.isRepeated(level, start, end, decoded)) {
      throw new ApiError('duplicate_key', { param: this.pathTo(level), message: 'The request body repeats a key within one object.' });
    }
    if (level === 1) this.rootValue = this.lastKeyIs(1, 'model') ? MODEL_VALUE : this.lastKeyIs(1, 'stream_options') ? STREAM_OPTIONS_VALUE : OTHER_VALUE;
  }

  private lastKeyIs(level: number, word: string): boolean {
    return keyIs(this.text, this.lastKeyStart[level] ?? 0, this.lastKeyEnd[level] ?? 0, this.lastKeyDecoded[level] ?? null, word);
  }

  private isRepeated(level: number, start: number, end: number, decoded: string | null): boolean {
    const text = this.text;
    const seen = this.seenKeys[level];
    if (seen != null) {
      const key = decoded ?? text.slice(start, end);
      if (seen.has(key)) return true;
      seen.add(key);
      return false;
    }
    const first = this.firstKeyAt[level] ?? 0;
    const count = this.keyCount;
    for (let k = first; k < count; k++) if (this.isOpenKey(k, start, end, decoded)) return true;
    if (count - first < LINEAR_KEY_LIMIT) {
      this.keyStart[count] = start;
      this.keyEnd[count] = end;
      this.keyDecoded[count] = decoded;
      this.keyCount = count + 1;
      if (count + 1 > this.keysHighWater) this.keysHighWater = count + 1;
    } else {
      // Past the linear search's bound the level's keys go into a Set, as strings.
      const keys = new Set<string>();
      for (let k = first; k < count; k++) keys.add(this.keyDecoded[k] ?? text.slice(this.keyStart[k] ?? 0, this.keyEnd[k] ?? 0));
      this.seenKeys[level] = keys.add(decoded ?? text.slice(start, end));
    }
    return false;
  }

  /** Returns the position after the number token. */
  private number(start: number): number {
    const text = this.text;
    let i = start + 1;
    let hasExponent = false;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === LOWER_E || c === UPPER_E) hasExponent = true;
      else if (!((c >= DIGIT_0 && c <= DIGIT_9) || c === DOT || c === PLUS || c === MINUS)) break;
    }
    if ((hasExponent || i - start > MAX_PLAIN_NUMBER_CHARS) && Math.abs(Number(text.slice(start, i))) === Infinity) {
      throw new ApiError('invalid_value', { param: this.pathTo(this.depth), message: 'Numbers must be finite (at most about 1.8e308 in magnitude).' });
    }
    return i;
  }

  /** Whether open key `k` is the key spanning `start`–`end` (decoded: `decoded`, if it has escapes). */
  private isOpenKey(k: number, start: number, end: number, decoded: string | null): boolean {
    const text = this.text;
    const kStart = this.keyStart[k] ?? 0;
    const kEnd = this.keyEnd[k] ?? 0;
    const kDecoded = this.keyDecoded[k] ?? null;
    if (kDecoded !== null) return keyIs(text, start, end, decoded, kDecoded);
    if (decoded !== null) return keyIs(text, kStart, kEnd, null, decoded);
    return spansEqual(text, kStart, kEnd, start, end);
  }

  private lastKeyText(level: number): string {
    const start = this.lastKeyStart[level] ?? -1;
    if (start === -1) return '';
    return this.lastKeyDecoded[level] ?? this.text.slice(start, this.lastKeyEnd[level] ?? start);
  }

  private pathTo(level: number): string | undefined {
    let path = '';
    for (let l = 1; l <= level; l++) {
      path = this.isObject[l] === 1 ? appendKey(path, this.lastKeyText(l)) : appendIndex(path, this.index[l] ?? 0);
    }
    return toParam(path);
  }
}

const SCANNER = new JsonScanner();

/** A quote is escaped when an odd number of backslashes precede it. */
function isEscaped(text: string, quote: number): boolean {
  let backslashes = 0;
  for (let i = quote - 1; text.charCodeAt(i) === BACKSLASH; i--) backslashes++;
  return backslashes % 2 === 1;
}

function hasEscape(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (text.charCodeAt(i) === BACKSLASH) return true;
  return false;
}

/** Whether a key (its span in the text, or its decoded text when it has escapes) is `word`. */
function keyIs(text: string, start: number, end: number, decoded: string | null, word: string): boolean {
  if (decoded !== null) return decoded === word;
  return end - start === word.length && text.startsWith(word, start);
}

function spansEqual(text: string, aStart: number, aEnd: number, bStart: number, bEnd: number): boolean {
  const length = aEnd - aStart;
  if (bEnd - bStart !== length) return false;
  for (let i = 0; i < length; i++) if (text.charCodeAt(aStart + i) !== text.charCodeAt(bStart + i)) return false;
  return true;
}

function decodeKey(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    throw new ApiError('invalid_json');
  }
}
