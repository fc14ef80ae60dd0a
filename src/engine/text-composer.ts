// Composes plausible-looking prose: capitalised sentences of varying length, alternating function
// and content words, occasional commas, question marks and paragraph breaks. It assembles the reply
// from pre-tokenized units, so it never runs the tokenizer and allocates no strings per token.
import { countTextTokens } from '../tokens/count-tokens.ts';
import type { Random } from './prng.ts';
import { sampleRank } from './word-sampler.ts';
import { type LanguageTables, sharedUnit, type TextUnit, WORD_FORM, type WordForm } from './word-tables.ts';

export interface ComposeOptions {
  readonly tables: LanguageTables;
  readonly functionWeights: Float64Array;
  readonly contentWeights: Float64Array;
  readonly random: Random;
  /** Whole sentences are added until the reply has this many tokens… */
  readonly targetTokens: number;
  /** …and composing stops mid-sentence once it has this many, */
  readonly capTokens: number;
  /** …having noted where the reply must end to keep within max_tokens. */
  readonly maxTokens: number;
}

export interface BudgetCut {
  /** How many leading pieces fit in max_tokens… */
  readonly pieces: number;
  /** …and the real token count of their text. */
  readonly tokens: number;
}

export interface ComposedReply {
  readonly pieces: readonly string[];
  /** Exact: the tokenizer would produce this many for pieces.join(''). */
  readonly tokens: number;
  /** Null when the whole reply fits in max_tokens. */
  readonly cut: BudgetCut | null;
}

const COMMA_CHANCE = 0.08;
const FUNCTION_WORD_CHANCE = 0.5;
const PARAGRAPH_CHANCE = 0.35;

export function composeReply(options: ComposeOptions): ComposedReply {
  const { tables, functionWeights, contentWeights, random, targetTokens, capTokens, maxTokens } = options;
  const reply = new ReplyBuilder(maxTokens);
  let opening: WordForm = WORD_FORM.paragraphStart;
  let sentencesInParagraph = 0;
  let previousRank = -1;
  let previousWasFunction = false;

  for (;;) {
    const length = 3 + Math.floor(random() * 9) + Math.floor(random() * 8);
    previousWasFunction = false;
    for (let position = 0; position < length; position++) {
      // Never two function words in a row, and a sentence ends on a content word.
      const isFunction: boolean = position < length - 1 && !previousWasFunction && random() < FUNCTION_WORD_CHANCE;
      const pool = isFunction ? tables.functionPool : tables.contentPool;
      const weights = isFunction ? functionWeights : contentWeights;
      let rank = sampleRank(weights, random);
      if (rank === previousRank && isFunction === previousWasFunction) rank = sampleRank(weights, random);

      reply.append(pool.unit(rank, position === 0 ? opening : WORD_FORM.inner));
      if (!isFunction && position > 1 && position < length - 2 && random() < COMMA_CHANCE) reply.append(sharedUnit(','));
      if (reply.tokens >= capTokens) return reply;
      previousRank = rank;
      previousWasFunction = isFunction;
    }
    sentencesInParagraph++;
    const done = reply.tokens + 1 >= targetTokens;
    const newParagraph = !done && sentencesInParagraph >= 3 && random() < PARAGRAPH_CHANCE;
    reply.append(sentenceEnd(random(), newParagraph));
    if (done || reply.tokens >= capTokens) return reply;
    opening = newParagraph ? WORD_FORM.paragraphStart : WORD_FORM.sentenceStart;
    if (newParagraph) sentencesInParagraph = 0;
  }
}

class ReplyBuilder implements ComposedReply {
  readonly pieces: string[] = [];
  tokens = 0;
  cut: BudgetCut | null = null;
  readonly #budget: number;

  constructor(budget: number) {
    this.#budget = budget;
  }

  append(unit: TextUnit): void {
    if (this.cut === null && this.tokens + unit.tokens > this.#budget) this.cut = this.#cutWithin(unit);
    for (const piece of unit.pieces) this.pieces.push(piece);
    this.tokens += unit.tokens;
  }

  // Units tokenize independently of their neighbours, so only the part of this unit that is kept
  // (a word cut short can tokenize differently on its own) needs the tokenizer.
  #cutWithin(unit: TextUnit): BudgetCut {
    const room = this.#budget - this.tokens;
    let kept = 0;
    let used = 0;
    while (kept < unit.pieces.length && used + (unit.pieceTokens[kept] ?? 0) <= room) used += unit.pieceTokens[kept++] ?? 0;
    let partTokens = kept === 0 ? 0 : countTextTokens(unit.pieces.slice(0, kept).join(''));
    while (kept > 0 && partTokens > room) {
      kept--;
      partTokens = countTextTokens(unit.pieces.slice(0, kept).join(''));
    }
    return { pieces: this.pieces.length + kept, tokens: this.tokens + partTokens };
  }
}

// A paragraph break rides on the mark: the tokenizer keeps ".\n\n" together as one piece.
function sentenceEnd(draw: number, newParagraph: boolean): TextUnit {
  const mark = draw < 0.08 ? '?' : draw < 0.12 ? '!' : '.';
  return sharedUnit(newParagraph ? `${mark}\n\n` : mark);
}
