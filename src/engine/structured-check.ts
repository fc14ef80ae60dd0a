// The schemas of a structured request, checked on the engine's thread before generation (valid JSON
// Schema, within the subset the engine generates, tool arguments an object), and what was generated,
// validated against them before it leaves. A value that does not validate means the schema asks for
// what the engine cannot generate (a pattern its format's values do not always match): the
// client's schema, so a 400 naming the keyword, not a server error.
import type { EngineChoice, EngineRefusal, EngineStructure, EngineTool } from './engine-types.ts';
import { type CheckedSchema, checkSchema, InvalidSchema } from './schema-cache.ts';

export interface CheckedStructure {
  /** By tool name. */
  readonly tools: ReadonlyMap<string, CheckedParam>;
  readonly format: CheckedParam | null;
  /** The structure values are generated from: the request's, with the schemas the engine generates from. */
  readonly generation: EngineStructure;
}

/** A checked schema and the request parameter it came from. */
export interface CheckedParam {
  readonly schema: CheckedSchema;
  readonly param: string;
}

const SUBSET =
  'The local engine supports type, properties, required, additionalProperties, items, enum, const, anyOf, local $ref, ' +
  'length and number bounds, and the formats date-time, date, time, email, uri, uuid, hostname, ipv4 and ipv6; ' +
  'optional properties outside this subset are left out of the values it generates.';

/**
 * Under `auto` (or `required` with other tools to call), a tool whose schema is outside the subset is
 * left out of the tools the engine calls, as a model may leave any tool uncalled: an agent that offers
 * thirty tools is not refused for one. A request that forces that tool, or forces a call when no
 * tool is left, is refused naming the construct; a schema that is not valid JSON Schema always is.
 */
export function checkStructure(structure: EngineStructure): CheckedStructure | EngineRefusal {
  const tools = new Map<string, CheckedParam>();
  const { toolChoice } = structure;
  let generationTools: (EngineTool | null)[] | null = null;
  let firstLeftOut: EngineRefusal | null = null;
  for (let index = 0; index < structure.tools.length; index++) {
    const { name, parameters } = structure.tools[index]!;
    const param = `tools[${index}].function.parameters`;
    // Arguments are a JSON object in OpenAI's interface, and clients parse them as one.
    if (parameters.type !== undefined && parameters.type !== 'object') {
      return { code: 'unsupported_parameter', param: `${param}.type`, message: `${param} must describe an object (type "object").` };
    }
    const checked = check(parameters, param);
    if ('code' in checked) {
      const forced = typeof toolChoice === 'object' && toolChoice.name === name;
      if (checked.code !== 'unsupported_parameter' || forced) return checked;
      firstLeftOut ??= checked;
      generationTools ??= [...structure.tools];
      generationTools[index] = null;
      continue;
    }
    tools.set(name, { schema: checked, param });
    if (checked.generatable !== null) {
      generationTools ??= [...structure.tools];
      generationTools[index] = { name, parameters: checked.generatable };
    }
  }
  if (firstLeftOut !== null && toolChoice === 'required' && tools.size === 0) return firstLeftOut;
  const callable = generationTools?.filter((tool) => tool !== null);
  const generation = callable === undefined ? structure : { ...structure, tools: callable };
  if (structure.jsonSchema === null) return { tools, format: null, generation };
  const param = 'response_format.json_schema.schema';
  const format = check(structure.jsonSchema, param);
  if ('code' in format) return format;
  return { tools, format: { schema: format, param }, generation: format.generatable === null ? generation : { ...generation, jsonSchema: format.generatable } };
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
 * The refusal for the first tool call's arguments or JSON content that does not validate; null when
 * all do. Replies cut by max_tokens and content a stop sequence may have cut are let through, as a
 * model's would be. Throws when a tool call names no tool or its arguments are not JSON: a generator fault.
 */
export function checkOutput(choices: readonly EngineChoice[], checked: CheckedStructure, stops: readonly string[]): EngineRefusal | null {
  for (const choice of choices) {
    if (choice.finishReason === 'length') continue;
    if (choice.toolCalls !== undefined) {
      for (const call of choice.toolCalls) {
        const tool = checked.tools.get(call.name);
        if (tool === undefined) throw new Error(`a call names ${call.name}, which is not a tool`);
        const refusal = validate(tool, call.argumentPieces.join(''));
        if (refusal !== null) return refusal;
      }
    } else if (checked.format !== null && stops.length === 0) {
      const refusal = validate(checked.format, choice.pieces.join(''));
      if (refusal !== null) return refusal;
    }
  }
  return null;
}

function validate({ schema, param }: CheckedParam, json: string): EngineRefusal | null {
  const { validate } = schema;
  if (validate(JSON.parse(json)) === true) return null;
  // `#/properties/email/pattern` → `properties.email.pattern`.
  const error = validate.errors?.[0];
  const at = error === undefined ? '' : error.schemaPath.replace(/^#\/?/, '').split('/').map(unescapePointer).join('.');
  return {
    code: 'unsupported_parameter',
    param: at === '' ? param : `${param}.${at}`,
    message: `The local engine cannot generate values that satisfy ${error?.keyword ?? 'the schema'} in ${param}${at === '' ? '' : ` at ${at}`}.`,
  };
}

function unescapePointer(segment: string): string {
  return decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~');
}
