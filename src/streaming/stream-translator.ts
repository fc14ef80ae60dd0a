// A stream in another protocol (Responses, Messages) made from a chat completion's stream: chat
// chunks in, that protocol's events out. One per streamed request, set on its RequestContext.
import type { ApiError } from '../errors/api-error.ts';
import type { EventBytes } from './event-bytes.ts';

export interface StreamTranslator {
  /** A chat.completion.chunk (parsed); the protocol's framed events for it, or ''. */
  chunk(chunk: ChatChunk): string;
  /**
   * A chunk that carries only a piece of choice 0's text (translating-sink.ts, TextShape): its
   * events, as chunk() would make them, appended to `out`. The text is `source` from `start` to
   * `end`: its JSON string literal, quotes included, as the chunk's bytes have it. Optional: without
   * it every chunk is parsed.
   */
  textBytes?(out: EventBytes, source: Uint8Array, start: number, end: number): void;
  /** The chat stream's `[DONE]`: the events that close a whole completion. */
  done(): string;
  /** The stream failed after it opened (an error event, a cut connection): the events that end it. */
  failed(error: ApiError | { readonly message: string; readonly code?: string | null; readonly type?: string }): string;
  /** The stream opened on `out`: a translator with events of its own between chunks (a keep-alive) writes them there. */
  opened?(out: StreamOut): void;
}

/** The client's open stream, for events a translator sends on its own; writes nothing once closed. */
export interface StreamOut {
  readonly closed: boolean;
  write(events: string): boolean;
}

/** The parts of a chat.completion.chunk a translator reads. */
export interface ChatChunk {
  readonly id?: string;
  readonly model?: string;
  readonly choices?: readonly ChatChunkChoice[];
  readonly usage?: { readonly prompt_tokens?: number; readonly completion_tokens?: number } | null;
  readonly error?: { readonly message: string; readonly type?: string; readonly code?: string | null };
}

export interface ChatChunkChoice {
  readonly index: number;
  readonly delta?: {
    readonly role?: string;
    readonly content?: string | null;
    readonly refusal?: string | null;
    /** A reasoning model's thinking, as vLLM and others stream it (older servers: `reasoning_content`). */
    readonly reasoning?: string | null;
    readonly reasoning_content?: string | null;
    readonly tool_calls?: readonly ChatChunkToolCall[];
  };
  readonly finish_reason?: string | null;
}

export interface ChatChunkToolCall {
  readonly index: number;
  readonly id?: string;
  readonly type?: string;
  readonly function?: { readonly name?: string; readonly arguments?: string };
}
