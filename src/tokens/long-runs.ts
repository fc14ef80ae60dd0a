// gpt-tokenizer merges byte pairs in O(n²) per pre-tokenized piece, and a piece is a run of letters,
// symbols or whitespace: 64 KiB of "aaaa…" takes seconds, 1 MiB would take many minutes. Cutting
// such runs into short chunks keeps tokenizing linear. Pieces only span a run of one kind (plus one
// leading character), so text with no long run is never cut and its count stays exact.

/** Longest run tokenized in one go; a cut changes the count of such a run by about one token. */
export const MAX_RUN_CHARS = 128;

/** null when no run is longer than maxRun (the common case), otherwise chunks that concatenate to text. */
export function splitLongRuns(text: string, maxRun = MAX_RUN_CHARS): string[] | null {
  if (text.length <= maxRun) return null;
  let chunks: string[] | null = null;
  let chunkStart = 0;
  let runLength = 0;
  let runIsSpace = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const isSpace = isWhitespace(code);
    if (isSpace !== runIsSpace) {
      runIsSpace = isSpace;
      runLength = 0;
    }
    // Never between the halves of a surrogate pair.
    if (++runLength > maxRun && !(code >= 0xdc00 && code <= 0xdfff)) {
      chunks ??= [];
      chunks.push(text.slice(chunkStart, i));
      chunkStart = i;
      runLength = 1;
    }
  }
  if (chunks !== null) chunks.push(text.slice(chunkStart));
  return chunks;
}

function isWhitespace(code: number): boolean {
  return (
    code === 0x20 ||
    (code >= 0x09 && code <= 0x0d) ||
    code === 0xa0 ||
    code === 0x85 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
