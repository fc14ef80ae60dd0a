// The rules between messages that a JSON Schema cannot say: which roles carry tool calls and tool
// results, that each tool result answers a call made before it, that every call is answered before
// the conversation goes on, and where content may be null or a list of parts. Runs only on bodies
// the plain message schema refused (chat-request-schema.ts), so plain requests never pay for it.
import { ApiError } from '../errors/api-error.ts';
import type { ChatMessage } from './chat-request.ts';

export interface ConversationShape {
  /** The first message with content parts, or -1. */
  readonly contentPartsAt: number;
  /** The first image part (`messages[i].content[j]`), or null: a text model cannot take it. */
  readonly imagePartAt: string | null;
  /** The first message with tool_calls or role `tool`, or -1. */
  readonly toolHistoryAt: number;
  readonly endsWithToolResult: boolean;
}

export function checkConversation(messages: readonly ChatMessage[]): ConversationShape {
  let contentPartsAt = -1;
  let imagePartAt: string | null = null;
  let toolHistoryAt = -1;
  const called = new Set<string>();
  const unanswered = new Set<string>();
  let callsAt = -1;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    const at = `messages[${index}]`;
    if (message.role !== 'tool' && unanswered.size > 0) throw unansweredCalls(callsAt);
    if (message.tool_calls !== undefined) {
      if (message.role !== 'assistant') throw new ApiError('unknown_parameter', { param: `${at}.tool_calls`, message: 'Only assistant messages carry tool_calls.' });
      for (let call = 0; call < message.tool_calls.length; call++) {
        const { id } = message.tool_calls[call]!;
        if (called.has(id)) throw new ApiError('invalid_value', { param: `${at}.tool_calls[${call}].id`, message: 'Each tool call needs an id of its own.' });
        called.add(id);
        unanswered.add(id);
      }
      callsAt = index;
      if (toolHistoryAt === -1) toolHistoryAt = index;
    }
    if (message.role === 'tool') {
      if (toolHistoryAt === -1) toolHistoryAt = index;
      checkToolResult(message, at, called, unanswered);
    } else if (message.tool_call_id !== undefined) {
      throw new ApiError('unknown_parameter', { param: `${at}.tool_call_id`, message: 'Only tool messages carry tool_call_id.' });
    }
    if (Array.isArray(message.content)) {
      const image = checkParts(message, at);
      if (contentPartsAt === -1) contentPartsAt = index;
      if (imagePartAt === null) imagePartAt = image;
    } else if (typeof message.content !== 'string') {
      checkMissingContent(message, at);
    }
  }
  if (unanswered.size > 0) throw unansweredCalls(callsAt);
  return { contentPartsAt, imagePartAt, toolHistoryAt, endsWithToolResult: messages.at(-1)?.role === 'tool' };
}

function checkToolResult(message: ChatMessage, at: string, called: ReadonlySet<string>, unanswered: Set<string>): void {
  const id = message.tool_call_id;
  if (id === undefined) throw new ApiError('missing_required_parameter', { param: `${at}.tool_call_id`, message: `${at}.tool_call_id is required.` });
  if (!unanswered.delete(id)) {
    throw new ApiError('invalid_value', {
      param: `${at}.tool_call_id`,
      message: called.has(id)
        ? `${at}.tool_call_id answers a tool call that an earlier tool message already answered.`
        : `${at}.tool_call_id does not match any tool call of the assistant message before it.`,
    });
  }
}

function unansweredCalls(callsAt: number): ApiError {
  return new ApiError('invalid_value', {
    param: `messages[${callsAt}].tool_calls`,
    message: `An assistant message with tool_calls must be followed by one tool message per call (messages[${callsAt}] has calls without an answer).`,
  });
}

/** content is absent or null: only an assistant turn that calls tools may leave it out. */
function checkMissingContent(message: ChatMessage, at: string): void {
  if (message.role === 'assistant' && message.tool_calls !== undefined) return;
  if (message.content === undefined) throw new ApiError('missing_required_parameter', { param: `${at}.content`, message: `${at}.content is required.` });
  throw new ApiError('invalid_content', { param: `${at}.content`, message: `${at}.content must be a string.` });
}

/** Checks a message's parts; the first image part's param, or null. */
function checkParts(message: ChatMessage, at: string): string | null {
  const parts = message.content as readonly { type: string; text?: string; image_url?: unknown; refusal?: unknown }[];
  if (parts.length === 0) throw new ApiError('invalid_content', { param: `${at}.content`, message: `${at}.content must not be an empty list.` });
  let image: string | null = null;
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index]!;
    const param = `${at}.content[${index}]`;
    if (part.type === 'text') {
      if (part.text === undefined) throw new ApiError('missing_required_parameter', { param: `${param}.text`, message: `${param}.text is required.` });
      if (part.image_url !== undefined) throw new ApiError('unknown_parameter', { param: `${param}.image_url`, message: 'A text part has no image_url.' });
    } else if (part.type === 'refusal') {
      if (typeof part.refusal !== 'string') throw new ApiError('missing_required_parameter', { param: `${param}.refusal`, message: `${param}.refusal is required.` });
      if (message.role !== 'assistant') throw new ApiError('invalid_content', { param, message: 'Only assistant messages may hold refusals.' });
    } else {
      image ??= param;
      if (part.image_url === undefined) throw new ApiError('missing_required_parameter', { param: `${param}.image_url`, message: `${param}.image_url is required.` });
      if (part.text !== undefined) throw new ApiError('unknown_parameter', { param: `${param}.text`, message: 'An image part has no text.' });
      if (message.role !== 'user') throw new ApiError('invalid_content', { param, message: 'Only user messages may hold images.' });
    }
  }
  return image;
}
