// Whether the model that serves a request can honour its tools, response format and content parts, as
// its config declares (`supports`): what it cannot is refused, never passed on to fail or dropped.
import type { ModelConfig } from '../config/config-types.ts';
import type { EngineStructure } from '../engine/engine-types.ts';
import { ApiError } from '../errors/api-error.ts';
import type { StructuredRequest } from '../validation/chat-request.ts';

export function checkSupport(structured: StructuredRequest, model: ModelConfig): void {
  const { supports } = model;
  if (structured.contentPartsAt !== -1 && !supports.contentParts) {
    const param = `messages[${structured.contentPartsAt}].content`;
    throw new ApiError('invalid_content', { param, message: `${param} must be a string: the model "${model.id}" does not take content parts.` });
  }
  // The built-in engine reads text: its models take text parts, never images.
  if (structured.imagePartAt !== null && model.target.kind === 'local') {
    throw new ApiError('unsupported_parameter', { param: structured.imagePartAt, message: `${structured.imagePartAt} is an image; the model "${model.id}" reads text only.` });
  }
  if (!supports.tools) {
    if (structured.tools.length > 0) throw unsupported('tools', model);
    if (structured.toolHistoryAt !== -1) throw unsupported(`messages[${structured.toolHistoryAt}]`, model, 'Tool calls and tool results are');
  }
  if (!supports.responseFormat && structured.responseFormat !== null) throw unsupported('response_format', model);
}

const ANY_OBJECT: Readonly<Record<string, unknown>> = Object.freeze({ type: 'object', properties: {} });

/** The engine's part of a request the local engine serves (its threads check the schemas). */
export function engineStructure(structured: StructuredRequest): EngineStructure {
  const { tools, toolChoice, responseFormat } = structured;
  return {
    tools: tools.map((tool) => ({ name: tool.function.name, parameters: tool.function.parameters ?? ANY_OBJECT })),
    toolChoice: typeof toolChoice === 'object' ? { name: toolChoice.function.name } : toolChoice,
    parallelToolCalls: structured.parallelToolCalls,
    endsWithToolResult: structured.endsWithToolResult,
    json: responseFormat !== null,
    jsonSchema: responseFormat?.json_schema?.schema ?? null,
  };
}

function unsupported(param: string, model: ModelConfig, what = `${param} is`): ApiError {
  return new ApiError('unsupported_parameter', { param, message: `${what} not supported by the model "${model.id}".` });
}
