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
  try {
    return new ClientPattern(pattern, RE2JS.compile(RE2JS.translateRegExp(pattern)));
  } catch {
    return REFUSED_PATTERN;
  }
}

/** For ajv's `code.regExp` option: every `pattern` keyword a client schema holds goes through it. */
export const clientRegExp: RegExpEngine = Object.assign((pattern: string) => compileClientPattern(pattern), { code: 'compileClientPattern' });

class ClientPattern implements RegExpLike {
  readonly #source: string;
  readonly #re2: RE2JS;

  constructor(source: string, re2: RE2JS) {
    this.#source = source;
    this.#re2 = re2;
  }

  test(value: string): boolean {
    return this.#re2.test(value);
  }

  // ajv keys its compiled patterns by this text.
  toString(): string {
    return `/${this.#source}/u`;
  }
}
