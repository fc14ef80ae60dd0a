// Client JSON Schemas (tool parameters, response formats), compiled by ajv once per engine thread and
// kept in a bounded cache keyed by their text: a client that sends the same tools on every request
// pays the compile (~10 ms for a 500-character schema) once per thread. Each entry also notes whether
// the engine can generate values for the schema. Runs on the engine's threads, never the main one.
import { Ajv, type ValidateFunction } from 'ajv';
import { clientRegExp } from './client-pattern.ts';
import { createRandom } from './prng.ts';
import { findUnsupported, generatableSchema, type UnsupportedConstruct } from './schema-subset.ts';
import { valueFor } from './schema-values.ts';

export interface CheckedSchema {
  readonly validate: ValidateFunction;
  /** The schema values are generated from when it differs from the client's (schema-subset.ts generatableSchema). */
  readonly generatable: Readonly<Record<string, unknown>> | null;
  /** The first construct the engine cannot generate values for; null when it can. */
  readonly unsupported: UnsupportedConstruct | null;
}

/** Why a schema cannot be used at all. */
export class InvalidSchema extends Error {
  override name = 'InvalidSchema';
}

const MAX_ENTRIES = 256;
// A compiled schema's code grows with its text, so the cache is bounded by both.
const MAX_TOTAL_CHARS = 4 * 1024 * 1024;
/** Compiling costs about 3 ms per KiB of schema: larger ones would hold a thread for too long. */
export const MAX_SCHEMA_CHARS = 64 * 1024;

// Client schemas carry keywords ajv does not know (strict mode would refuse them) and formats
// without a validator here; the subset check deals with both. allErrors keeps the generated code
// flat: without it, a schema with ~2,000 properties nests deep enough to overflow the stack.
// Patterns run on RE2 (client-pattern.ts): a client's regular expression cannot backtrack without end.
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true, logger: false, code: { regExp: clientRegExp } });
const TRIAL_WORDS = ['trial'];
const cache = new Map<string, CheckedSchema>();
let totalChars = 0;
/** Time spent on schemas not in the cache since takeSchemaMs() was last called. */
let spentMs = 0;

/** The time spent compiling and checking schemas since the last call (this thread's tasks are sequential). */
export function takeSchemaMs(): number {
  const ms = spentMs;
  spentMs = 0;
  return ms;
}

/** Throws InvalidSchema. */
export function checkSchema(schema: Readonly<Record<string, unknown>>): CheckedSchema {
  const key = JSON.stringify(schema);
  const cached = cache.get(key);
  if (cached !== undefined) {
    // Map order is insertion order: moving a hit to the end keeps the eviction least-recently used.
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  if (key.length > MAX_SCHEMA_CHARS) throw new InvalidSchema(`it must be at most ${MAX_SCHEMA_CHARS} characters of JSON`);
  const startedAt = performance.now();
  let checked: CheckedSchema;
  try {
    const validate = compile(schema);
    const generatable = generatableSchema(schema);
    const generated = generatable ?? schema;
    checked = { validate, generatable, unsupported: findUnsupported(generated) ?? endlessRecursion(generated) };
  } finally {
    spentMs += performance.now() - startedAt;
  }
  while (cache.size > 0 && (cache.size >= MAX_ENTRIES || totalChars + key.length > MAX_TOTAL_CHARS)) {
    const oldest = cache.keys().next().value!;
    cache.delete(oldest);
    totalChars -= oldest.length;
  }
  cache.set(key, checked);
  totalChars += key.length;
  return checked;
}

// A schema whose $ref requires itself at every level has no finite value: found with one trial value.
function endlessRecursion(schema: Readonly<Record<string, unknown>>): UnsupportedConstruct | null {
  try {
    valueFor(schema, { random: createRandom(1), words: TRIAL_WORDS });
    return null;
  } catch (error) {
    if (error instanceof RangeError) return { construct: 'a $ref that requires itself without end', path: '' };
    throw error;
  }
}

function compile(schema: Readonly<Record<string, unknown>>): ValidateFunction {
  // `$schema` names a draft (zod writes 2020-12); the keywords the subset allows mean the same in each.
  const { $schema: _draft, $id: _id, ...rest } = schema;
  try {
    return ajv.compile(rest);
  } catch (error) {
    throw new InvalidSchema(error instanceof Error ? error.message.slice(0, 300) : 'it cannot be compiled');
  } finally {
    // ajv keeps every schema object it compiled, for good: the eviction above must be the only owner.
    ajv.removeSchema(rest);
  }
}
