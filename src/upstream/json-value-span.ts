// Where a value lies in JSON text, found by its key path from the root object (["response",
// "model"]) without building anything: a relay rewrites that one value in the bytes it passes on
// and leaves the rest as the server wrote it. A key search alone could take a nested object's key
// of the same name (a `metadata.model` written before the response's own `model`).
// The text must be JSON that JSON.parse accepts (the caller parsed it), read as latin1 when it
// comes from bytes, so that a position in the text is one in the bytes. A key spelled with escapes
// is not matched.

const [QUOTE, BACKSLASH, COLON, COMMA, SPACE, TAB, LF, CR] = [34, 92, 58, 44, 32, 9, 10, 13];
const [OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY] = [123, 125, 91, 93];

export interface ValueSpan {
  /** The value's first character. */
  readonly start: number;
  /** Past its last character. */
  readonly end: number;
}

/** The span of the value at `path`, the root object opening at or after `from`; null when there is none. */
export function valueSpan(text: string, path: readonly string[], from = 0): ValueSpan | null {
  // `depth` counts the open containers; the path's first `matched` keys lead to the object open at depth `matched + 1`.
  let depth = 0;
  let matched = 0;
  for (let at = text.indexOf('{', from); at !== -1 && at < text.length; at++) {
    const char = text.charCodeAt(at);
    if (char === QUOTE) {
      const end = stringEnd(text, at);
      const colon = depth === matched + 1 ? skipSpace(text, end) : -1;
      if (colon !== -1 && text.charCodeAt(colon) === COLON && end - at - 2 === path[matched]!.length && text.startsWith(path[matched]!, at + 1)) {
        const value = skipSpace(text, colon + 1);
        if (++matched === path.length) return { start: value, end: valueEnd(text, value) };
        if (text.charCodeAt(value) !== OPEN_OBJECT) return null;
        depth++;
        at = value;
        continue;
      }
      at = end - 1;
    } else if (char === OPEN_OBJECT || char === OPEN_ARRAY) {
      depth++;
    } else if (char === CLOSE_OBJECT || char === CLOSE_ARRAY) {
      // Out of the object the path leads through: the rest of the path is not in it.
      if (--depth <= matched) return null;
    }
  }
  return null;
}

/** Past the closing quote of the string whose opening quote is at `at`. */
function stringEnd(text: string, at: number): number {
  for (let quote = text.indexOf('"', at + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
  }
  return text.length;
}

/** Past the value that begins at `at`. */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return stringEnd(text, at);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    let end = at;
    for (let char = text.charCodeAt(end); end < text.length && char !== COMMA && char !== CLOSE_OBJECT && char !== CLOSE_ARRAY && !isSpace(char); char = text.charCodeAt(++end));
    return end;
  }
  let depth = 0;
  for (let end = at; end < text.length; end++) {
    const char = text.charCodeAt(end);
    if (char === QUOTE) end = stringEnd(text, end) - 1;
    else if (char === OPEN_OBJECT || char === OPEN_ARRAY) depth++;
    else if ((char === CLOSE_OBJECT || char === CLOSE_ARRAY) && --depth === 0) return end + 1;
  }
  return text.length;
}

function skipSpace(text: string, at: number): number {
  while (isSpace(text.charCodeAt(at))) at++;
  return at;
}

function isSpace(char: number): boolean {
  return char === SPACE || char === LF || char === CR || char === TAB;
}
