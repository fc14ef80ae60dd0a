// Per-language word pools whose words are tokenized once per thread, on first use.
import { tokenPieces, type PieceTokens } from '../tokens/count-tokens.ts';
import type { EngineLanguage } from './engine-types.ts';
import type { Vocabulary } from './vocabulary.ts';
import { VOCABULARY_EN } from './vocabulary-en.ts';
import { VOCABULARY_HR } from './vocabulary-hr.ts';

/**
 * Text the tokenizer's pre-splitting always cuts before and after (" word", "Word", ",", ".\n\n"),
 * so a reply's tokens are exactly the concatenation of its units' tokens.
 */
export interface TextUnit extends PieceTokens {
  readonly tokens: number;
}

/** A word mid-sentence (" word"), opening a sentence (" Word"), or opening the reply or a paragraph ("Word"). */
export const WORD_FORM = { inner: 0, sentenceStart: 1, paragraphStart: 2 } as const;
export type WordForm = (typeof WORD_FORM)[keyof typeof WORD_FORM];

export class WordPool {
  readonly words: readonly string[];
  readonly #units: (TextUnit | undefined)[][] = [[], [], []];

  constructor(words: readonly string[]) {
    this.words = words;
  }

  unit(rank: number, form: WordForm): TextUnit {
    const units = this.#units[form] ?? [];
    let unit = units[rank];
    if (unit === undefined) {
      const word = this.words[rank] ?? '';
      const capitalised = word.charAt(0).toLocaleUpperCase('hr') + word.slice(1);
      const text = form === WORD_FORM.inner ? ` ${word}` : form === WORD_FORM.sentenceStart ? ` ${capitalised}` : capitalised;
      unit = textUnit(text);
      units[rank] = unit;
    }
    return unit;
  }
}

export interface LanguageTables {
  readonly functionPool: WordPool;
  readonly contentPool: WordPool;
}

const VOCABULARIES: Readonly<Record<EngineLanguage, Vocabulary>> = { en: VOCABULARY_EN, hr: VOCABULARY_HR };
const tables = new Map<EngineLanguage, LanguageTables>();
const sharedUnits = new Map<string, TextUnit>();

export function languageTables(language: EngineLanguage): LanguageTables {
  let found = tables.get(language);
  if (found === undefined) {
    const vocabulary = VOCABULARIES[language] ?? VOCABULARY_EN;
    found = { functionPool: new WordPool(vocabulary.functionWords), contentPool: new WordPool(vocabulary.contentWords) };
    tables.set(language, found);
  }
  return found;
}

/** A memoised unit for the few fixed strings between words (punctuation, paragraph breaks). */
export function sharedUnit(text: string): TextUnit {
  let unit = sharedUnits.get(text);
  if (unit === undefined) {
    unit = textUnit(text);
    sharedUnits.set(text, unit);
  }
  return unit;
}

function textUnit(text: string): TextUnit {
  const { pieces, pieceTokens } = tokenPieces(text);
  return { pieces, pieceTokens, tokens: pieceTokens.reduce((sum, count) => sum + count, 0) };
}
