// The part of JSON Schema the local engine generates values for. A schema outside it is refused
// (400 unsupported_parameter naming the construct) rather than answered with values that might not
// validate. Annotations (title, description, default, examples, …) and keywords JSON Schema does not
// define are ignored, as validators ignore them.

import type { RegExpLike } from 'ajv/dist/types/index.js';
import { compileClientPattern, REFUSED_PATTERN } from './client-pattern.ts';
import { createRandom } from './prng.ts';
import { valueFor } from './schema-values.ts';

export interface UnsupportedConstruct {
  /** The keyword, or keyword and value (`format: "regex"`). */
  readonly construct: string;
  /** Where it is, in JSON-path notation from the schema's root (`properties.when.pattern`); '' for the root. */
  readonly path: string;
}

export const SUPPORTED_FORMATS: ReadonlySet<string> = new Set(['date-time', 'date', 'time', 'email', 'uri', 'url', 'uuid', 'hostname', 'ipv4', 'ipv6']);

const UNSUPPORTED_KEYWORDS = [
  'patternProperties', 'propertyNames', 'not', 'allOf', 'oneOf', 'if', 'then', 'else',
  'dependencies', 'dependentRequired', 'dependentSchemas', 'contains', 'minContains', 'maxContains',
  'prefixItems', 'additionalItems', 'minProperties', 'maxProperties', 'multipleOf',
  'unevaluatedProperties', 'unevaluatedItems', '$dynamicRef', '$recursiveRef', '$anchor', '$dynamicAnchor',
  'contentEncoding', 'contentMediaType', 'contentSchema',
] as const;

const PATTERN_SAMPLES = 8;
const SAMPLE_WORDS = ['relationship', 'organization', 'information', 'development'];

const TYPES: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array']);
const LOCAL_REF = /^#(\/(\$defs|definitions)\/[^/]+)?$/;

type Schema = Readonly<Record<string, unknown>>;

export function findUnsupported(root: Schema): UnsupportedConstruct | null {
  return walk(root, '', true);
}

/**
 * The schema values are generated from, or null when it is `root` itself: the optional properties
 * whose schemas are outside the subset are left out, since a value without an optional property
 * still validates. A schema is then refused only for what its values must hold (an agent's tool
 * with an optional `pattern` field can still be called).
 */
export function generatableSchema(root: Schema): Schema | null {
  const pruned = prune(root);
  return pruned === root ? null : (pruned as Schema);
}

/** `schema`, or a copy along the paths to the optional properties left out. */
function prune(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const s = schema as Schema;
  let copy: Record<string, unknown> | null = null;
  const replace = (keyword: string, value: unknown): void => {
    if (value === s[keyword]) return;
    copy ??= { ...s };
    copy[keyword] = value;
  };
  if (isObject(s.properties)) {
    const required = Array.isArray(s.required) ? s.required : [];
    replace('properties', pruneMembers(s.properties, (name, child) => (!required.includes(name) && walk(child, '', false) !== null ? undefined : prune(child))));
  }
  for (const keyword of ['$defs', 'definitions'] as const) {
    const children = s[keyword];
    if (isObject(children)) replace(keyword, pruneMembers(children, (_name, child) => prune(child)));
  }
  if (isObject(s.additionalProperties)) replace('additionalProperties', prune(s.additionalProperties));
  if (isObject(s.items)) replace('items', prune(s.items));
  if (Array.isArray(s.anyOf)) {
    const branches = s.anyOf.map(prune);
    if (branches.some((branch, index) => branch !== (s.anyOf as unknown[])[index])) replace('anyOf', branches);
  }
  return copy ?? s;
}

/** `members` with each value as `map` gives it (undefined: left out); `members` itself when none changed. */
function pruneMembers(members: Schema, map: (name: string, child: unknown) => unknown): Schema {
  let copy: Record<string, unknown> | null = null;
  for (const [name, child] of Object.entries(members)) {
    const kept = map(name, child);
    if (kept === child) continue;
    copy ??= { ...members };
    // defineProperty: a property named __proto__ stays an own property.
    if (kept === undefined) delete copy[name];
    else Object.defineProperty(copy, name, { value: kept, enumerable: true, writable: true, configurable: true });
  }
  return copy ?? members;
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function walk(schema: unknown, path: string, isRoot: boolean): UnsupportedConstruct | null {
  if (typeof schema === 'boolean') return schema ? null : { construct: 'false (a schema nothing satisfies)', path };
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { construct: 'a schema that is not an object', path };
  const s = schema as Schema;
  for (const keyword of UNSUPPORTED_KEYWORDS) if (s[keyword] !== undefined) return { construct: keyword, path: join(path, keyword) };
  if (!isRoot && s.$id !== undefined) return { construct: '$id', path: join(path, '$id') };
  if (s.uniqueItems === true) return { construct: 'uniqueItems', path: join(path, 'uniqueItems') };
  if (Array.isArray(s.items)) return { construct: 'items as an array (tuples)', path: join(path, 'items') };
  if (s.$ref !== undefined && (typeof s.$ref !== 'string' || !LOCAL_REF.test(s.$ref))) {
    return { construct: '$ref outside #/$defs and #/definitions', path: join(path, '$ref') };
  }
  const type = s.type;
  if (type !== undefined) {
    const types = Array.isArray(type) ? type : [type];
    if (types.length === 0 || types.some((t) => typeof t !== 'string' || !TYPES.has(t))) return { construct: 'type', path: join(path, 'type') };
  }
  if (s.enum !== undefined && (!Array.isArray(s.enum) || s.enum.length === 0)) return { construct: 'an empty enum', path: join(path, 'enum') };
  if (s.pattern !== undefined) {
    // A pattern beside no format is refused without compiling it.
    const pattern = typeof s.pattern === 'string' && typeof s.format === 'string' && SUPPORTED_FORMATS.has(s.format) ? patternOrNull(s.pattern) : null;
    if (pattern === REFUSED_PATTERN) {
      return { construct: 'a pattern with look-around or back-references (patterns run on a linear-time engine)', path: join(path, 'pattern') };
    }
    if (pattern === null || !formatMatches(s, pattern)) return { construct: 'pattern', path: join(path, 'pattern') };
  }
  if (s.format !== undefined) {
    if (typeof s.format !== 'string' || !SUPPORTED_FORMATS.has(s.format)) return { construct: `format: ${JSON.stringify(s.format)}`, path: join(path, 'format') };
    if (s.minLength !== undefined || s.maxLength !== undefined) return { construct: 'format with minLength or maxLength', path: join(path, 'format') };
  }
  if (s.anyOf !== undefined && (!Array.isArray(s.anyOf) || s.anyOf.length === 0)) return { construct: 'an empty anyOf', path: join(path, 'anyOf') };
  return walkChildren(s, path);
}

/**
 * A pattern is honoured only beside a format whose values match it (zod writes both for z.email(),
 * z.uuid(), …): a sample of generated values is tested once, when the schema is first seen. A value
 * generated later that the pattern refuses is found when the reply is validated (a 400 then).
 */
function formatMatches(s: Schema, pattern: RegExpLike): boolean {
  if (typeof s.format !== 'string' || !SUPPORTED_FORMATS.has(s.format)) return false;
  const sample = { type: 'string', format: s.format };
  const values: string[] = [];
  for (let seed = 1; seed <= PATTERN_SAMPLES; seed++) values.push(valueFor(sample, { random: createRandom(seed), words: SAMPLE_WORDS }) as string);
  return values.every((value) => pattern.test(value));
}

/** Null when the text is not a regular expression. */
function patternOrNull(text: string): RegExpLike | null {
  try {
    return compileClientPattern(text);
  } catch {
    return null;
  }
}

function walkChildren(s: Schema, path: string): UnsupportedConstruct | null {
  for (const keyword of ['properties', '$defs', 'definitions'] as const) {
    const children = s[keyword];
    if (children === undefined) continue;
    if (typeof children !== 'object' || children === null) return { construct: keyword, path: join(path, keyword) };
    for (const [name, child] of Object.entries(children)) {
      const found = walk(child, join(join(path, keyword), name), false);
      if (found !== null) return found;
    }
  }
  if (typeof s.additionalProperties === 'object' && s.additionalProperties !== null) {
    const found = walk(s.additionalProperties, join(path, 'additionalProperties'), false);
    if (found !== null) return found;
  }
  if (s.items !== undefined) {
    const found = walk(s.items, join(path, 'items'), false);
    if (found !== null) return found;
  }
  if (Array.isArray(s.anyOf)) {
    for (let index = 0; index < s.anyOf.length; index++) {
      const found = walk(s.anyOf[index], `${join(path, 'anyOf')}[${index}]`, false);
      if (found !== null) return found;
    }
  }
  return null;
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
