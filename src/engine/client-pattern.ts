// Regular expressions from client schemas run on RE2 (re2js, pure JavaScript): matching time is
// linear in the input, so no pattern can backtrack without end on a value and hold an engine thread
// (V8's backtracking engine takes ~4^n steps on `(?:.|.|.|.)*X`). A JSON Schema pattern is ECMA-262
// with the `u` flag and unanchored; re2js translates that syntax (`\u00e9`, named groups) and
// `test` searches anywhere in the value, as `RegExp.prototype.test` does. What RE2 cannot run in
// linear time (look-around, back-references) is refused.
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

/** A pattern that is valid ECMA-262 but needs look-around or back-references. */
export const REFUSED_PATTERN: RegExpLike = Object.freeze({ test: () => false, toString: () => 'refused pattern' });

/**
 * Throws SyntaxError when the pattern is not a regular expression at all; returns REFUSED_PATTERN when
 * RE2 cannot run it (the schema walk reports that one with its path, so it never validates anything).
 */
export function compileClientPattern(pattern: string): RegExpLike {
  // Compiling (not matching) with V8 only checks the syntax JSON Schema defines; it is linear.
  new RegExp(pattern, 'u');
  const re2 = re2OrNull(pattern);
  return re2 === null ? REFUSED_PATTERN : new ClientPattern(pattern, re2);
}

/**
 * For ajv's `code.regExp` option: every `pattern` keyword a client schema holds goes through it.
 * RE2 compiles a pattern on its first use: a schema's patterns are compiled by ajv whether or not the
 * schema is within the subset, and some cost milliseconds each (`[\p{L}\p{N}]{1,150}`).
 */
export const clientRegExp: RegExpEngine = Object.assign(
  (pattern: string): RegExpLike => {
    new RegExp(pattern, 'u');
    return new ClientPattern(pattern, undefined);
  },
  { code: 'clientRegExp' },
);

// The sample check and validation compile the same texts, and clients repeat theirs (zod's email).
const MAX_COMPILED = 1024;
const compiled = new Map<string, RE2JS | null>();

function re2OrNull(pattern: string): RE2JS | null {
  const known = compiled.get(pattern);
  if (known !== undefined) return known;
  let re2: RE2JS | null;
  try {
    re2 = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch {
    re2 = null;
  }
  if (compiled.size >= MAX_COMPILED) compiled.clear();
  compiled.set(pattern, re2);
  return re2;
}

class ClientPattern implements RegExpLike {
  readonly #source: string;
  /** undefined until first used; null when RE2 cannot run it (the schema walk refuses such a schema first). */
  #re2: RE2JS | null | undefined;

  constructor(source: string, re2: RE2JS | undefined) {
    this.#source = source;
    this.#re2 = re2;
  }

  test(value: string): boolean {
    if (this.#re2 === undefined) this.#re2 = re2OrNull(this.#source);
    return this.#re2 !== null && this.#re2.test(value);
  }

  // ajv keys its compiled patterns by this text.
  toString(): string {
    return `/${this.#source}/u`;
  }
}
