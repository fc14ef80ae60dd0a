// The chat completion request after validation. `null` on an optional field means "not given",
// as in OpenAI's API; the shapes mirror chat-request-schema.ts.

import type { PromptMessage } from '../tokens/count-tokens.ts';
import type { JsonBody } from './json-body.ts';

export type ChatRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export type ChatContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'refusal'; readonly refusal: string }
  | { readonly type: 'image_url'; readonly image_url: { readonly url: string; readonly detail?: 'auto' | 'low' | 'high' } };

export interface ChatToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

export interface ChatMessage {
  readonly role: ChatRole;
  /** A string, except: null on an assistant turn with tool_calls; parts for models that opt in. */
  readonly content?: string | null | readonly ChatContentPart[];
  readonly name?: string;
  /** Clients echo an earlier reply back with its `refusal` (usually null). */
  readonly refusal?: string | null;
  readonly tool_calls?: readonly ChatToolCall[];
  readonly tool_call_id?: string;
}

export interface ChatFunctionTool {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description?: string;
    readonly parameters?: Readonly<Record<string, unknown>>;
    readonly strict?: boolean | null;
  };
}

export type ChatToolChoice = 'none' | 'auto' | 'required' | { readonly type: 'function'; readonly function: { readonly name: string } };

export interface ChatResponseFormat {
  readonly type: 'text' | 'json_object' | 'json_schema';
  readonly json_schema?: {
    readonly name: string;
    readonly description?: string;
    readonly schema?: Readonly<Record<string, unknown>>;
    readonly strict?: boolean | null;
  };
}

export interface ChatPrediction {
  readonly type: 'content';
  readonly content: string | readonly { readonly type: 'text'; readonly text: string }[];
}

/** The body exactly as the client sent it (validated, not rewritten): relays forward it. */
export interface ChatRequestBody {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly temperature?: number | null;
  readonly top_p?: number | null;
  readonly presence_penalty?: number | null;
  readonly frequency_penalty?: number | null;
  readonly max_tokens?: number | null;
  readonly max_completion_tokens?: number | null;
  readonly n?: number | null;
  readonly stop?: string | readonly string[] | null;
  readonly seed?: number | null;
  readonly user?: string;
  readonly stream?: boolean | null;
  readonly stream_options?: { readonly include_usage?: boolean; readonly include_obfuscation?: boolean } | null;
  readonly logit_bias?: Readonly<Record<string, number>> | null;
  readonly logprobs?: boolean | null;
  readonly top_logprobs?: number | null;
  readonly response_format?: ChatResponseFormat;
  readonly tools?: readonly ChatFunctionTool[];
  readonly tool_choice?: ChatToolChoice;
  readonly parallel_tool_calls?: boolean;
  readonly metadata?: Readonly<Record<string, string>> | null;
  readonly store?: boolean | null;
  readonly service_tier?: 'auto' | 'default' | 'flex' | 'scale' | 'priority' | 'fast' | null;
  readonly reasoning_effort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max' | null;
  readonly safety_identifier?: string | null;
  readonly prompt_cache_key?: string | null;
  readonly modalities?: readonly ('text' | 'audio')[] | null;
  readonly verbosity?: 'low' | 'medium' | 'high' | null;
  readonly prediction?: ChatPrediction | null;
}

/**
 * What a request asks beyond plain text: tools, a response format, tool turns, content parts.
 * Null on a plain request, so that one costs nothing for it.
 */
export interface StructuredRequest {
  readonly tools: readonly ChatFunctionTool[];
  /** `auto` when tools are given without a choice, `none` without tools. */
  readonly toolChoice: ChatToolChoice;
  readonly parallelToolCalls: boolean;
  /** `json_object` or `json_schema`; null for text. */
  readonly responseFormat: ChatResponseFormat | null;
  /** The first message with content parts, or -1. */
  readonly contentPartsAt: number;
  /** The first image part (`messages[i].content[j]`), or null. */
  readonly imagePartAt: string | null;
  /** The first message with tool_calls or role `tool`, or -1. */
  readonly toolHistoryAt: number;
  /** The conversation ends with tool results: the model's turn follows a tool call. */
  readonly endsWithToolResult: boolean;
}

/** A validated request: the original body plus the normalised values the gateway acts on. */
export interface ChatRequest {
  readonly body: ChatRequestBody;
  /** The body's text as the client sent it, when the request came as JSON text (not from MCP's arguments). */
  readonly source: JsonBody | null;
  readonly model: string;
  /** The messages as text, for token counts and the local engine: `body.messages` on a plain request. */
  readonly messages: readonly PromptMessage[];
  readonly structured: StructuredRequest | null;
  readonly stream: boolean;
  /** `stream_options.include_usage`; only ever true when `stream` is. */
  readonly includeUsage: boolean;
  /** `max_completion_tokens` or `max_tokens` (never both); the model's cap is checked later. */
  readonly maxTokens: number | null;
  /** The field `maxTokens` came from, for error params (`max_completion_tokens` when neither is set). */
  readonly maxTokensParam: 'max_tokens' | 'max_completion_tokens';
  readonly n: number;
  /** `stop` as a list: a single string becomes one entry, absent or null becomes empty. */
  readonly stop: readonly string[];
  /** null: the routed model's default applies. */
  readonly temperature: number | null;
  readonly topP: number | null;
  readonly seed: number | null;
  readonly logprobs: boolean;
  readonly topLogprobs: number | null;
}
