import type { ErrorObject } from 'ajv';
import { ApiError } from '../errors/api-error.ts';
import type { ErrorCode } from '../errors/catalogue.ts';
import { appendIndex, appendKey, toParam } from './param-path.ts';

// Fields whose failures have their own catalogue code, keyed by ajv's schemaPath.
const ROLE_SCHEMA_PATH = '#/properties/messages/items/properties/role/';
const CONTENT_TYPE_SCHEMA_PATH = '#/properties/messages/items/properties/content/type';
const MESSAGES_MIN_ITEMS_SCHEMA_PATH = '#/properties/messages/minItems';

/**
 * Turns the first ajv error (compiled with `verbose: true`, so `parentSchema` is present) into
 * the ApiError a client sees. Messages are built from the schema and the field's name only:
 * never from the value that was sent.
 */
export function mapAjvError(error: ErrorObject, root: unknown): ApiError {
  const path = toOpenAiPath(error.instancePath, root);
  const where = path === '' ? 'The request body' : path;
  const schema = error.parentSchema ?? {};
  switch (error.keyword) {
    case 'required': {
      const param = appendKey(path, String(error.params.missingProperty));
      return new ApiError('missing_required_parameter', { param, message: `${param} is required.` });
    }
    case 'additionalProperties':
      return new ApiError('unknown_parameter', {
        param: appendKey(path, String(error.params.additionalProperty)),
        message: `${where} has an unrecognized parameter (named in param).`,
      });
    case 'type':
      if (typeof error.data === 'number' && !Number.isFinite(error.data)) return invalidValue(path, `${where} must be a finite number.`);
      return new ApiError(typeErrorCode(error.schemaPath), { param: toParam(path), message: `${where} must be ${describeTypes(schema.type)}.` });
    case 'enum':
      return new ApiError(error.schemaPath.startsWith(ROLE_SCHEMA_PATH) ? 'invalid_role' : 'invalid_value', {
        param: toParam(path),
        message: `${where} must be one of ${(error.params.allowedValues as unknown[]).filter((v) => v !== null).join(', ')}.`,
      });
    case 'minItems':
      if (error.schemaPath === MESSAGES_MIN_ITEMS_SCHEMA_PATH) return new ApiError('empty_messages', { param: 'messages' });
      return invalidValue(path, `${where} must have at least ${schema.minItems} items.`);
    default:
      return invalidValue(path, `${where} ${describeRule(error, schema)}.`);
  }
}

function typeErrorCode(schemaPath: string): ErrorCode {
  if (schemaPath === CONTENT_TYPE_SCHEMA_PATH) return 'invalid_content';
  if (schemaPath.startsWith(ROLE_SCHEMA_PATH)) return 'invalid_role';
  return 'invalid_type';
}

function invalidValue(path: string, message: string): ApiError {
  return new ApiError('invalid_value', { param: toParam(path), message });
}

/** What the keyword of `error` asks, in words (after the field's name): `must be at most 4 characters long`. */
export function describeRule(error: ErrorObject, schema: Record<string, unknown>): string {
  if (error.propertyName !== undefined) return 'has a key that is not allowed';
  switch (error.keyword) {
    case 'minimum':
    case 'maximum':
      if (schema.minimum !== undefined && schema.maximum !== undefined) return `must be between ${schema.minimum} and ${schema.maximum}`;
      return error.keyword === 'minimum' ? `must be at least ${schema.minimum}` : `must be at most ${schema.maximum}`;
    case 'minLength':
      return schema.minLength === 1 ? 'must not be empty' : `must be at least ${schema.minLength} characters long`;
    case 'maxLength':
      return `must be at most ${schema.maxLength} characters long`;
    case 'maxItems':
      return `must have at most ${schema.maxItems} items`;
    case 'minProperties':
      return `must have at least ${schema.minProperties} ${schema.minProperties === 1 ? 'field' : 'fields'}`;
    case 'maxProperties':
      return `must have at most ${schema.maxProperties} entries`;
    case 'uniqueItems':
      return 'must not repeat an item';
    case 'const':
      return `must be "${String(schema.const)}"`;
    case 'pattern':
      return `must match ${String(schema.pattern)}`;
    default:
      return 'has an invalid value';
  }
}

const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a finite number',
  integer: 'an integer',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  null: 'null',
};

/** A schema's `type` in words: `a string or null`. */
export function describeTypes(type: unknown): string {
  const types = Array.isArray(type) ? type : [type];
  return types.map((t) => TYPE_WORDS[String(t)] ?? String(t)).join(' or ');
}

/** ajv's JSON Pointer (`/messages/0/role`) → OpenAI's notation (`messages[0].role`). */
function toOpenAiPath(pointer: string, root: unknown): string {
  if (pointer === '') return '';
  let path = '';
  let node = root;
  for (const escaped of pointer.slice(1).split('/')) {
    const segment = escaped.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) {
      path = appendIndex(path, Number(segment));
      node = node[Number(segment)];
    } else {
      path = appendKey(path, segment);
      node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[segment] : undefined;
    }
  }
  return path;
}
