// The contract between the main thread and the local engine's piscina workers.
// Only plain data crosses it (it is structured-cloned).

export type EngineLanguage = 'en' | 'hr';

export interface EngineMessage {
  readonly role: string;
  readonly content: string;
}

export interface EngineTask {
  readonly messages: readonly EngineMessage[];
  readonly language: EngineLanguage;
  /** When present, generation is reproducible: same seed + same request → same text. */
  readonly seed: number | null;
  /** 0–2. 0 makes the reply depend on the prompt only. Higher values pick rarer words. */
  readonly temperature: number;
  /** 0–1 nucleus cut-off over the word distribution. */
  readonly topP: number;
  /** Completion token budget per choice; reaching it ends the choice with finish_reason "length". */
  readonly maxTokens: number;
  readonly n: number;
  readonly stop: readonly string[];
}

export type FinishReason = 'stop' | 'length';

export interface EngineChoice {
  /** The reply split at token boundaries (each piece is valid UTF-8 text, one or more tokens). */
  readonly pieces: readonly string[];
  readonly finishReason: FinishReason;
  readonly completionTokens: number;
}

export interface EngineResult {
  readonly promptTokens: number;
  readonly choices: readonly EngineChoice[];
}
