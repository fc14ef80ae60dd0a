// JSON Schemas a client sends (tool parameters, response formats), compiled by ajv once and kept in a
// bounded cache keyed by their text: a client that sends the same tools on every request pays the
// compile (~0.1-1 ms each) once. Each entry also notes whether the local engine can generate values for
// the schema, so that check is paid once too.
import { Ajv, type ValidateFunction } from 'ajv';
import { ApiError } from '../errors/api-error.ts';
import { findUnsupported, type UnsupportedConstruct } from '../engine/schema-subset.ts';

export interface CheckedSchema {
  readonly schema: Readonly<Record<string, unknown>>;
  readonly validate: ValidateFunction;
  /** The first construct the local engine cannot generate values for; null when it can. */
  readonly unsupported: UnsupportedConstruct | null;
}

const MAX_ENTRIES = 512;
/** OpenAI caps a structured-output schema at about 120,000 characters of strings; this is close. */
export const MAX_SCHEMA_CHARS = 128 * 1024;

// Client schemas carry keywords ajv does not know (`strict` mode would refuse them) and formats
// without a validator here; both are left to the generator's subset check.
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: false, logger: false });
const cache = new Map<string, CheckedSchema>();

/** `param` names the schema in errors: `tools[0].function.parameters`. Throws ApiError invalid_value. */
export function checkSchema(schema: Readonly<Record<string, unknown>>, param: string): CheckedSchema {
  const key = JSON.stringify(schema);
  const cached = cache.get(key);
  if (cached !== undefined) {
    // Map order is insertion order: moving a hit to the end keeps the eviction least-recently used.
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  if (key.length > MAX_SCHEMA_CHARS) {
    throw new ApiError('invalid_value', { param, message: `${param} must be at most ${MAX_SCHEMA_CHARS} characters of JSON.` });
  }
  const checked: CheckedSchema = { schema, validate: compile(schema, param), unsupported: findUnsupported(schema) };
  if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(key, checked);
  return checked;
}

function compile(schema: Readonly<Record<string, unknown>>, param: string): ValidateFunction {
  // `$schema` names a draft (zod writes 2020-12); the keywords the subset allows mean the same in each.
  const { $schema: _draft, $id: _id, ...rest } = schema;
  try {
    return ajv.compile(rest);
  } catch (error) {
    const reason = error instanceof Error ? error.message.slice(0, 300) : 'it cannot be compiled';
    throw new ApiError('invalid_value', { param, message: `${param} is not a valid JSON Schema: ${reason}` });
  } finally {
    // ajv keeps every schema object it compiled, for good: the eviction above must be the only owner.
    ajv.removeSchema(rest);
  }
}
