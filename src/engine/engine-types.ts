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
  /** Tools and a response format; absent on a plain request. */
  readonly structure?: EngineStructure | undefined;
}

export interface EngineTool {
  readonly name: string;
  /** A JSON Schema within the supported subset (schema-subset.ts). */
  readonly parameters: Readonly<Record<string, unknown>>;
}

export interface EngineStructure {
  readonly tools: readonly EngineTool[];
  /** `auto` calls tools on some seeds and answers on others; an object names the one tool to call. */
  readonly toolChoice: 'none' | 'auto' | 'required' | { readonly name: string };
  readonly parallelToolCalls: boolean;
  /** Under `auto`, the turn after tool results is an answer. */
  readonly endsWithToolResult: boolean;
  /** The content is JSON: an object valid against `jsonSchema` when there is one. */
  readonly json: boolean;
  readonly jsonSchema: Readonly<Record<string, unknown>> | null;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls';

export interface EngineToolCall {
  readonly id: string;
  readonly name: string;
  /** The arguments' JSON text split at token boundaries (whole only when the choice did not hit max_tokens). */
  readonly argumentPieces: readonly string[];
}

export interface EngineChoice {
  /** The reply split at token boundaries (each piece is valid UTF-8 text, one or more tokens). Empty with tool calls. */
  readonly pieces: readonly string[];
  readonly finishReason: FinishReason;
  readonly completionTokens: number;
  /** Present when the model calls tools; the content is then null. */
  readonly toolCalls?: readonly EngineToolCall[];
  /** The stop sequence that ended the reply, told as vLLM tells it (a choice's `stop_reason`). */
  readonly stopSequence?: string;
}

export interface EngineResult {
  readonly promptTokens: number;
  readonly choices: readonly EngineChoice[];
  /** Set (with no choices) when the request's schemas cannot be used: the client's error. */
  readonly refusal?: EngineRefusal;
  /** With tools or a response format: the ms spent compiling and checking schemas not in the cache. */
  readonly schemaMs?: number;
}

/** A 400 found on the engine's thread, where client schemas are compiled. */
export interface EngineRefusal {
  readonly code: 'invalid_value' | 'unsupported_parameter';
  readonly param: string;
  readonly message: string;
}
