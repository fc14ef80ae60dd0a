// Tools, tool_choice, parallel_tool_calls and response_format, checked against each other, with each
// client schema compiled (schema-cache.ts): the StructuredRequest the dispatch and the engine act on.
import { ApiError } from '../errors/api-error.ts';
import type { ChatRequestBody, StructuredRequest } from './chat-request.ts';
import type { ConversationShape } from './conversation-rules.ts';
import { type CheckedSchema, checkSchema } from './schema-cache.ts';

const PLAIN_CONVERSATION: ConversationShape = { contentPartsAt: -1, toolHistoryAt: -1, endsWithToolResult: false };
const ANY_OBJECT: Readonly<Record<string, unknown>> = Object.freeze({ type: 'object', properties: {} });

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
  const toolSchemas = checkTools(body);
  const toolChoice = body.tool_choice ?? (tools.length > 0 ? 'auto' : 'none');
  if (typeof toolChoice === 'object' && !tools.some((tool) => tool.function.name === toolChoice.function.name)) {
    throw new ApiError('invalid_value', { param: 'tool_choice.function.name', message: 'tool_choice names a function that is not in tools.' });
  }
  const schema = responseFormat?.json_schema?.schema;
  return {
    tools,
    toolSchemas,
    toolChoice,
    parallelToolCalls: body.parallel_tool_calls !== false,
    responseFormat,
    formatSchema: schema === undefined ? null : checkSchema(schema, 'response_format.json_schema.schema'),
    ...(conversation ?? PLAIN_CONVERSATION),
  };
}

function checkTools(body: ChatRequestBody): CheckedSchema[] {
  const tools = body.tools ?? [];
  const names = new Set<string>();
  const schemas: CheckedSchema[] = [];
  for (let index = 0; index < tools.length; index++) {
    const { name, parameters } = tools[index]!.function;
    if (names.has(name)) throw new ApiError('invalid_value', { param: `tools[${index}].function.name`, message: 'Each tool needs a name of its own.' });
    names.add(name);
    schemas.push(checkSchema(parameters ?? ANY_OBJECT, `tools[${index}].function.parameters`));
  }
  return schemas;
}
