// Tools, tool_choice, parallel_tool_calls and response_format, checked against each other: the
// StructuredRequest the dispatch and the engine act on. The schemas themselves are the business of
// whoever generates from them: the local engine checks them on its threads, a model server its own way.
import { ApiError } from '../errors/api-error.ts';
import type { ChatFunctionTool, ChatRequestBody, StructuredRequest } from './chat-request.ts';
import type { ConversationShape } from './conversation-rules.ts';

const PLAIN_CONVERSATION: ConversationShape = { contentPartsAt: -1, imagePartAt: null, toolHistoryAt: -1, endsWithToolResult: false };

/** Null when the request is plain text throughout. */
export function structuredRequest(body: ChatRequestBody, conversation: ConversationShape | null): StructuredRequest | null {
  const format = body.response_format;
  const responseFormat = format === undefined || format.type === 'text' ? null : format;
  if (body.tools === undefined && body.tool_choice === undefined && body.parallel_tool_calls === undefined && responseFormat === null && conversation === null) return null;
  const tools = body.tools ?? [];
  if (tools.length === 0) {
    if (body.tool_choice !== undefined) throw new ApiError('invalid_value', { param: 'tool_choice', message: 'tool_choice is only allowed when tools are given.' });
    if (body.parallel_tool_calls !== undefined) throw new ApiError('invalid_value', { param: 'parallel_tool_calls', message: 'parallel_tool_calls is only allowed when tools are given.' });
  }
  checkToolNames(tools);
  const toolChoice = body.tool_choice ?? (tools.length > 0 ? 'auto' : 'none');
  if (typeof toolChoice === 'object' && !tools.some((tool) => tool.function.name === toolChoice.function.name)) {
    throw new ApiError('invalid_value', { param: 'tool_choice.function.name', message: 'tool_choice names a function that is not in tools.' });
  }
  return {
    tools,
    toolChoice,
    parallelToolCalls: body.parallel_tool_calls !== false,
    responseFormat,
    ...(conversation ?? PLAIN_CONVERSATION),
  };
}

function checkToolNames(tools: readonly ChatFunctionTool[]): void {
  const names = new Set<string>();
  for (let index = 0; index < tools.length; index++) {
    const { name } = tools[index]!.function;
    if (names.has(name)) throw new ApiError('invalid_value', { param: `tools[${index}].function.name`, message: 'Each tool needs a name of its own.' });
    names.add(name);
  }
}
