// The schemas of a structured request, checked on the engine's thread before generation (valid JSON
// Schema, within the subset the engine generates, tool arguments an object), and what was generated,
// validated against them before it leaves: a generator fault fails the task, it never reaches a client.
import type { EngineChoice, EngineRefusal, EngineStructure } from './engine-types.ts';
import { type CheckedSchema, checkSchema, InvalidSchema } from './schema-cache.ts';

export interface CheckedStructure {
  /** By tool name. */
  readonly tools: ReadonlyMap<string, CheckedSchema>;
  readonly format: CheckedSchema | null;
}

const SUBSET =
  'The local engine supports type, properties, required, additionalProperties, items, enum, const, anyOf, local $ref, ' +
  'length and number bounds, and the formats date-time, date, time, email, uri, uuid, hostname, ipv4 and ipv6.';

export function checkStructure(structure: EngineStructure): CheckedStructure | EngineRefusal {
  const tools = new Map<string, CheckedSchema>();
  for (let index = 0; index < structure.tools.length; index++) {
    const { name, parameters } = structure.tools[index]!;
    const param = `tools[${index}].function.parameters`;
    // Arguments are a JSON object in OpenAI's interface, and clients parse them as one.
    if (parameters.type !== undefined && parameters.type !== 'object') {
      return { code: 'unsupported_parameter', param: `${param}.type`, message: `${param} must describe an object (type "object").` };
    }
    const checked = check(parameters, param);
    if ('code' in checked) return checked;
    tools.set(name, checked);
  }
  if (structure.jsonSchema === null) return { tools, format: null };
  const format = check(structure.jsonSchema, 'response_format.json_schema.schema');
  return 'code' in format ? format : { tools, format };
}

function check(schema: Readonly<Record<string, unknown>>, param: string): CheckedSchema | EngineRefusal {
  let checked: CheckedSchema;
  try {
    checked = checkSchema(schema);
  } catch (error) {
    if (!(error instanceof InvalidSchema)) throw error;
    return { code: 'invalid_value', param, message: `${param} is not a usable JSON Schema: ${error.message}.` };
  }
  const found = checked.unsupported;
  if (found === null) return checked;
  return {
    code: 'unsupported_parameter',
    param: found.path === '' ? param : `${param}.${found.path}`,
    message: `The local engine cannot generate values for ${found.construct} in ${param}. ${SUBSET}`,
  };
}

/**
 * Throws when a tool call's arguments or JSON content do not validate. Replies cut by max_tokens and
 * content a stop sequence may have cut are let through, as a model's would be.
 */
export function checkOutput(choices: readonly EngineChoice[], checked: CheckedStructure, stops: readonly string[]): void {
  for (const choice of choices) {
    if (choice.finishReason === 'length') continue;
    if (choice.toolCalls !== undefined) {
      for (const call of choice.toolCalls) {
        if (!isValid(checked.tools.get(call.name), call.argumentPieces.join(''))) throw new Error(`the arguments of a ${call.name} call do not validate`);
      }
    } else if (checked.format !== null && stops.length === 0 && !isValid(checked.format, choice.pieces.join(''))) {
      throw new Error('the JSON content does not validate');
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
