// Token counting with the o200k_base encoding (GPT-4o family), and splitting text at token boundaries.
import { countTokens, decode, encode } from 'gpt-tokenizer/encoding/o200k_base';
import { splitLongRuns } from './long-runs.ts';

// Text such as "<|endoftext|>" in a prompt is ordinary text to OpenAI; the tokenizer would throw on it by default.
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** OpenAI's chat framing: <|im_start|>{role}<|im_sep|>{content}<|im_end|> per message… */
export const TOKENS_PER_MESSAGE = 3;
/** …one more when the message carries a name… */
export const TOKENS_PER_NAME = 1;
/** …and <|im_start|>assistant<|im_sep|> priming the reply. */
export const REPLY_PRIMING_TOKENS = 3;

export interface PromptMessage {
  readonly role: string;
  readonly content: string;
  readonly name?: string;
}

/** Text split at token boundaries, with how many tokens each piece holds. */
export interface PieceTokens {
  readonly pieces: readonly string[];
  readonly pieceTokens: readonly number[];
}

export interface TokenPieces {
  /** Concatenated, the pieces are the (possibly truncated) text; each is whole UTF-8 text. */
  readonly pieces: readonly string[];
  /** The real token count of the concatenated pieces. */
  readonly tokenCount: number;
  /** True when the text had more than maxTokens tokens and was cut. */
  readonly truncated: boolean;
}

export function encodeText(text: string): number[] {
  const chunks = splitLongRuns(text);
  if (chunks === null) return encode(text, AS_PLAIN_TEXT);
  const tokens: number[] = [];
  for (const chunk of chunks) for (const token of encode(chunk, AS_PLAIN_TEXT)) tokens.push(token);
  return tokens;
}

export function countTextTokens(text: string): number {
  if (text.length === 0) return 0;
  const chunks = splitLongRuns(text);
  if (chunks === null) return countTokens(text, AS_PLAIN_TEXT);
  let count = 0;
  for (const chunk of chunks) count += countTokens(chunk, AS_PLAIN_TEXT);
  return count;
}

export function countPromptTokens(messages: readonly PromptMessage[]): number {
  let total = REPLY_PRIMING_TOKENS;
  for (const message of messages) {
    total += TOKENS_PER_MESSAGE + countTextTokens(message.role) + countTextTokens(message.content);
    if (message.name !== undefined) total += TOKENS_PER_NAME + countTextTokens(message.name);
  }
  return total;
}

/**
 * Splits text at token boundaries, one piece per token except where a multi-byte character spans
 * tokens (those tokens are merged). Keeps at most `maxTokens` tokens, cutting only between pieces.
 */
export function splitIntoPieces(text: string, maxTokens = Number.POSITIVE_INFINITY): TokenPieces {
  const split = tokenPieces(text);
  let tokenCount = 0;
  for (const count of split.pieceTokens) tokenCount += count;
  if (tokenCount <= maxTokens) return { pieces: split.pieces, tokenCount, truncated: false };
  return truncatePieces(split, maxTokens);
}

/** Keeps the leading pieces that fit in maxTokens; the caller knows the whole does not fit. */
function truncatePieces(split: PieceTokens, maxTokens: number): TokenPieces {
  const { pieces, pieceTokens } = split;
  let used = 0;
  let kept = 0;
  while (kept < pieces.length && used + (pieceTokens[kept] ?? 0) <= maxTokens) used += pieceTokens[kept++] ?? 0;
  const truncated = pieces.slice(0, kept);
  // Re-encoding a prefix can tokenize its last word differently; the budget is on the real count.
  let tokenCount = countTextTokens(truncated.join(''));
  while (tokenCount > maxTokens && truncated.length > 0) {
    truncated.pop();
    tokenCount = countTextTokens(truncated.join(''));
  }
  return { pieces: truncated, tokenCount, truncated: true };
}

// gpt-tokenizer's decode() shares one streaming TextDecoder: a token ending inside a character
// yields '' and the decoder holds its bytes for the next call. Decoding every token of a whole
// text in order therefore leaves the decoder clean, and '' marks a token to merge with the next.
export function tokenPieces(text: string): PieceTokens {
  const tokens = encodeText(text);
  const pieces: string[] = [];
  const pieceTokens: number[] = [];
  const single = [0];
  let offset = 0;
  let pending = 0;
  let diverged = false;
  for (const token of tokens) {
    single[0] = token;
    const piece = decode(single); // Even after diverging, so the decoder ends clean.
    if (diverged) continue;
    pending++;
    if (piece.length === 0) continue;
    // Only lone surrogates (encoded as U+FFFD) get here; the remainder becomes one piece below.
    if (!text.startsWith(piece, offset)) {
      diverged = true;
      continue;
    }
    pieces.push(piece);
    pieceTokens.push(pending);
    offset += piece.length;
    pending = 0;
  }
  if (offset < text.length) {
    const consumed = pieceTokens.reduce((sum, count) => sum + count, 0);
    pieces.push(text.slice(offset));
    pieceTokens.push(tokens.length - consumed);
  }
  return { pieces, pieceTokens };
}
