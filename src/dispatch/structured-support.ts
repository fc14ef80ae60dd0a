// Whether the model that serves a request can honour its tools, response format and content parts:
// what its config declares (`supports`), and for the local engine, whether it can generate values for
// each schema. What cannot be honoured is refused, never passed on to fail or silently dropped.
import type { ModelConfig } from '../config/config-types.ts';
import type { EngineResult, EngineStructure } from '../engine/engine-types.ts';
import { ApiError } from '../errors/api-error.ts';
import type { StructuredRequest } from '../validation/chat-request.ts';
import type { CheckedSchema } from '../validation/schema-cache.ts';

export function checkSupport(structured: StructuredRequest, model: ModelConfig): void {
  const { supports } = model;
  if (structured.contentPartsAt !== -1 && !supports.contentParts) {
    const param = `messages[${structured.contentPartsAt}].content`;
    throw new ApiError('invalid_content', { param, message: `${param} must be a string: the model "${model.id}" does not take content parts.` });
  }
  if (!supports.tools) {
    if (structured.tools.length > 0) throw unsupported('tools', model);
    if (structured.toolHistoryAt !== -1) throw unsupported(`messages[${structured.toolHistoryAt}]`, model, 'Tool calls and tool results are');
  }
  if (!supports.responseFormat && structured.responseFormat !== null) throw unsupported('response_format', model);
}

/** The engine's part of a request the local engine serves; refuses schemas it cannot generate values for. */
export function engineStructure(structured: StructuredRequest): EngineStructure {
  const { tools, toolSchemas, toolChoice, responseFormat, formatSchema } = structured;
  for (let index = 0; index < toolSchemas.length; index++) {
    const param = `tools[${index}].function.parameters`;
    const { type } = toolSchemas[index]!.schema;
    // Arguments are a JSON object in OpenAI's interface, and clients parse them as one.
    if (type !== undefined && type !== 'object') throw new ApiError('unsupported_parameter', { param: `${param}.type`, message: `${param} must describe an object (type "object").` });
    checkSubset(toolSchemas[index]!, param);
  }
  if (formatSchema !== null) checkSubset(formatSchema, 'response_format.json_schema.schema');
  return {
    tools: tools.map((tool, index) => ({ name: tool.function.name, parameters: toolSchemas[index]!.schema })),
    toolChoice: typeof toolChoice === 'object' ? { name: toolChoice.function.name } : toolChoice,
    parallelToolCalls: structured.parallelToolCalls,
    endsWithToolResult: structured.endsWithToolResult,
    json: responseFormat !== null,
    jsonSchema: formatSchema?.schema ?? null,
  };
}

/**
 * The engine's tool calls and JSON content, validated against the request's compiled schemas before
 * they leave: a value the generator got wrong is an engine_error, never a reply that breaks the
 * client's parser. Cut replies (`length`) and content a stop sequence may have cut are let through,
 * as a model's would be.
 */
export function checkEngineOutput(result: EngineResult, structured: StructuredRequest, stops: readonly string[]): void {
  for (const choice of result.choices) {
    if (choice.finishReason !== 'stop' && choice.finishReason !== 'tool_calls') continue;
    if (choice.toolCalls !== undefined) {
      for (const call of choice.toolCalls) {
        const index = structured.tools.findIndex((tool) => tool.function.name === call.name);
        if (!isValid(structured.toolSchemas[index], call.argumentPieces.join(''))) throw new ApiError('engine_error');
      }
    } else if (structured.responseFormat !== null && stops.length === 0 && structured.formatSchema !== null) {
      if (!isValid(structured.formatSchema, choice.pieces.join(''))) throw new ApiError('engine_error');
    }
  }
}

function isValid(checked: CheckedSchema | undefined, json: string): boolean {
  if (checked === undefined) return false;
  try {
    return checked.validate(JSON.parse(json)) === true;
  } catch {
    return false;
  }
}

function checkSubset(checked: CheckedSchema, param: string): void {
  const found = checked.unsupported;
  if (found === null) return;
  throw new ApiError('unsupported_parameter', {
    param: found.path === '' ? param : `${param}.${found.path}`,
    message: `The local engine cannot generate values for ${found.construct} in ${param}. It supports type, properties, required, additionalProperties, items, enum, const, anyOf, local $ref, length and number bounds, and the formats date-time, date, time, email, uri, uuid, hostname, ipv4 and ipv6.`,
  });
}

function unsupported(param: string, model: ModelConfig, what = `${param} is`): ApiError {
  return new ApiError('unsupported_parameter', { param, message: `${what} not supported by the model "${model.id}".` });
}
