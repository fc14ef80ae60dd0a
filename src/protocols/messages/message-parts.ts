// The parts of Anthropic's Message that the JSON reply and the stream share: ids, the stop reason
// from a chat finish_reason, the usage object.
import { completionId } from '../../streaming/completion-id.ts';

const CHAT_ID_PREFIX = 'chatcmpl-';
const TOOL_USE_PREFIX = 'toolu_';
const CHAT_CALL_PREFIX = 'call_';

/** `msg_` and 24 random characters. */
export function messageId(): string {
  return `msg_${completionId().slice(CHAT_ID_PREFIX.length)}`;
}

/**
 * A tool call's id as a tool_use id (`call_X` → `toolu_X`); the client sends it back in its
 * tool_result and it goes on to the model as the chat call's id, so any id the model gave works.
 */
export function toolUseId(chatId: string | undefined | null): string {
  if (typeof chatId !== 'string' || chatId === '') return `${TOOL_USE_PREFIX}${completionId().slice(CHAT_ID_PREFIX.length)}`;
  if (chatId.startsWith(TOOL_USE_PREFIX)) return chatId;
  return TOOL_USE_PREFIX + (chatId.startsWith(CHAT_CALL_PREFIX) ? chatId.slice(CHAT_CALL_PREFIX.length) : chatId);
}

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';

export interface Stop {
  readonly reason: StopReason;
  readonly sequence: string | null;
}

const END_TURN: Stop = { reason: 'end_turn', sequence: null };
const MAX_TOKENS: Stop = { reason: 'max_tokens', sequence: null };
const TOOL_USE: Stop = { reason: 'tool_use', sequence: null };
const REFUSAL: Stop = { reason: 'refusal', sequence: null };

/**
 * `matched`: the choice's `stop_reason`, where the model server says which stop sequence ended the
 * reply (vLLM, the built-in engine); without it a stop sequence's end reads as end_turn.
 */
export function stopOf(finishReason: unknown, matched: unknown, stops: readonly string[]): Stop {
  switch (finishReason) {
    case 'length':
      return MAX_TOKENS;
    case 'tool_calls':
    case 'function_call':
      return TOOL_USE;
    case 'content_filter':
      return REFUSAL;
    default:
      return typeof matched === 'string' && stops.includes(matched) ? { reason: 'stop_sequence', sequence: matched } : END_TURN;
  }
}

/** Usage with the cache fields Anthropic's types declare: nothing is cached here. */
export function usageJson(inputTokens: number, outputTokens: number): string {
  return `{"input_tokens":${inputTokens},"output_tokens":${outputTokens},"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0},"server_tool_use":null,"service_tier":null,"inference_geo":null,"output_tokens_details":null,"speed":null}`;
}

/** A tool call's arguments as a tool_use input: an object (a cut or malformed one is `{}`). */
export function toolInput(args: unknown): Record<string, unknown> {
  if (typeof args !== 'string') return {};
  try {
    const input: unknown = JSON.parse(args);
    return typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
