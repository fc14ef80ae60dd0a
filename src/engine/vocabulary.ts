// The shape of the word lists the local engine draws from.

export interface Vocabulary {
  /** Articles, prepositions, pronouns, conjunctions: most frequent first. */
  readonly functionWords: readonly string[];
  /** Nouns, verbs, adjectives, adverbs: most frequent first. */
  readonly contentWords: readonly string[];
}

export function wordList(text: string): readonly string[] {
  return text.split(/\s+/).filter((word) => word.length > 0);
}
