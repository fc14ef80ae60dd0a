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
export function scanJsonText(text: string, maxDepth: number): void {
  SCANNER.scan(text, maxDepth);
}

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
  lastKey: (string | null)[] = [];
  firstKeyAt = new Int32Array(0);
  seenKeys: (Set<string> | null)[] = [];
  // The keys of every open object, innermost last; level l's keys start at firstKeyAt[l].
  // keyCount, not openKeys.length, is the top: shrinking an array's length is a slow path.
  readonly openKeys: string[] = [];
  keyCount = 0;
  // How far this scan reached, so that release() clears only what it may have filled.
  deepest = 0;
  keysHighWater = 0;

  scan(text: string, maxDepth: number): void {
    if (maxDepth !== this.maxDepth) this.resize(maxDepth);
    this.text = text;
    this.depth = 0;
    this.expectKey = false;
    this.keyCount = 0;
    this.deepest = 0;
    this.keysHighWater = 0;
    try {
      this.run();
    } finally {
      this.release();
    }
  }

  /** Keys are slices of the text and keep all of it alive: none may outlive the scan. */
  private release(): void {
    this.text = '';
    const keys = this.openKeys;
    for (let k = 0; k < this.keysHighWater; k++) keys[k] = '';
    this.lastKey.fill(null, 0, this.deepest + 1);
    this.seenKeys.fill(null, 0, this.deepest + 1);
  }

  private resize(maxDepth: number): void {
    const levels = maxDepth + 1;
    this.maxDepth = maxDepth;
    this.isObject = new Uint8Array(levels);
    this.isConstructorValue = new Uint8Array(levels);
    this.index = new Int32Array(levels);
    this.firstKeyAt = new Int32Array(levels);
    this.lastKey = new Array<string | null>(levels).fill(null);
    this.seenKeys = new Array<Set<string> | null>(levels).fill(null);
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
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) this.open(c === OPEN_OBJECT);
      else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) this.close(c === CLOSE_OBJECT);
      else if (c === COMMA) this.comma();
      i++;
    }
  }

  private open(isObject: boolean): void {
    const parent = this.depth;
    if (parent === this.maxDepth) throw new ApiError('nesting_too_deep');
    const level = parent + 1;
    this.depth = level;
    if (level > this.deepest) this.deepest = level;
    this.isObject[level] = isObject ? 1 : 0;
    this.isConstructorValue[level] = isObject && this.isObject[parent] === 1 && this.lastKey[parent] === 'constructor' ? 1 : 0;
    this.lastKey[level] = null;
    this.index[level] = 0;
    this.firstKeyAt[level] = this.keyCount;
    this.seenKeys[level] = null;
    this.expectKey = isObject;
  }

  private close(isObject: boolean): void {
    const level = this.depth;
    if (level === 0 || this.isObject[level] !== (isObject ? 1 : 0)) throw new ApiError('invalid_json');
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
      this.key(text.slice(start + 1, end));
    }
    return end + 1;
  }

  private key(raw: string): void {
    const key = raw.indexOf('\\') === -1 ? raw : decodeKey(raw);
    const level = this.depth;
    this.lastKey[level] = key;
    if (key === '__proto__' || (key === 'prototype' && this.isConstructorValue[level] === 1)) {
      throw new ApiError('forbidden_key', { param: this.pathTo(level), message: 'The request body uses a reserved key (__proto__ or constructor.prototype).' });
    }
    if (this.isRepeated(level, key)) {
      throw new ApiError('duplicate_key', { param: this.pathTo(level), message: 'The request body repeats a key within one object.' });
    }
  }

  private isRepeated(level: number, key: string): boolean {
    const seen = this.seenKeys[level];
    if (seen != null) {
      if (seen.has(key)) return true;
      seen.add(key);
      return false;
    }
    const keys = this.openKeys;
    const first = this.firstKeyAt[level] ?? 0;
    const count = this.keyCount;
    for (let k = first; k < count; k++) if (keys[k] === key) return true;
    if (count - first < LINEAR_KEY_LIMIT) {
      keys[count] = key;
      this.keyCount = count + 1;
      if (count + 1 > this.keysHighWater) this.keysHighWater = count + 1;
    } else {
      this.seenKeys[level] = new Set(keys.slice(first, count)).add(key);
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

  private pathTo(level: number): string | undefined {
    let path = '';
    for (let l = 1; l <= level; l++) {
      path = this.isObject[l] === 1 ? appendKey(path, this.lastKey[l] ?? '') : appendIndex(path, this.index[l] ?? 0);
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

function decodeKey(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    throw new ApiError('invalid_json');
  }
}
