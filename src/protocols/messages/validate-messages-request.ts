// A parsed body → a validated MessagesBody, or a 400 whose message starts with the field at fault in
// Anthropic's notation (`messages.2.content.0.text: …`), which is also its param.
import { Ajv, type ErrorObject } from 'ajv';
import { ApiError } from '../../errors/api-error.ts';
import type { ErrorCode } from '../../errors/catalogue.ts';
import { describeRule, describeTypes } from '../../validation/map-ajv-error.ts';
import type { MessagesBody } from './messages-request.ts';
import { COUNT_TOKENS_SCHEMA, MESSAGES_REQUEST_SCHEMA } from './messages-request-schema.ts';

// Compiled once, as the chat schema is (validate-chat-request.ts); `discriminator` checks a block
// against the schema of its `type` only, so an error names the field inside that block.
const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true, verbose: true, discriminator: true });
const validateMessages = ajv.compile<MessagesBody>(MESSAGES_REQUEST_SCHEMA);
const validateCount = ajv.compile<MessagesBody>(COUNT_TOKENS_SCHEMA);

/** Keys chosen by the client are cut short so that a long one is never reflected back whole. */
const MAX_SHOWN_KEY_CHARS = 64;

/** `forCount`: the body of count_tokens (no max_tokens). */
export function validateMessagesRequest(value: unknown, forCount = false): MessagesBody {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ApiError('invalid_body');
  const validate = forCount ? validateCount : validateMessages;
  if (validate(value)) return value;
  const error = validate.errors?.[0];
  throw error === undefined ? new ApiError('invalid_body') : messagesError(error, value);
}

const TOOL_POINTER = /^\/tools\/(\d+)/;
const CONTENT_PATH = /^messages\.\d+\.content$/;

function messagesError(error: ErrorObject, body: unknown): ApiError {
  const path = messagesPath(error.instancePath);
  const schema = error.parentSchema ?? {};
  const tool = TOOL_POINTER.exec(error.instancePath);
  if (tool !== null) {
    const type = valueAt(body, tool[0], 'type');
    if (typeof type === 'string' && type !== 'custom') {
      return at(`tools.${tool[1]}.type`, 'unsupported_parameter', `${JSON.stringify(clip(type))} is one of Anthropic's server or built-in tools, which no model here has; offer custom tools (name, input_schema).`);
    }
  }
  switch (error.keyword) {
    case 'required':
      return at(join(path, String(error.params.missingProperty)), 'missing_required_parameter', 'Field required.');
    case 'additionalProperties':
      return at(join(path, String(error.params.additionalProperty)), 'unknown_parameter', 'Extra inputs are not permitted.');
    case 'discriminator': {
      const field = join(path, 'type');
      if (error.params.error !== 'mapping') return at(field, 'invalid_type', 'must be a string.');
      if (path === 'tool_choice') return at(field, 'invalid_value', 'must be one of auto, any, tool, none.');
      return at(field, 'invalid_value', `blocks of type ${JSON.stringify(clip(String(valueAt(body, error.instancePath, 'type'))))} are not supported here.`);
    }
    case 'type':
      if (typeof error.data === 'number' && !Number.isFinite(error.data)) return at(path, 'invalid_value', 'must be a finite number.');
      return at(path, CONTENT_PATH.test(path) ? 'invalid_content' : 'invalid_type', `must be ${describeTypes(schema.type)}.`);
    case 'enum':
      return at(path, path.endsWith('.role') ? 'invalid_role' : 'invalid_value', `must be one of ${(error.params.allowedValues as unknown[]).filter((v) => v !== null).join(', ')}.`);
    case 'minItems':
      if (path === 'messages') return at(path, 'empty_messages', 'at least one message is required.');
      return at(path, 'invalid_value', `must have at least ${schema.minItems} items.`);
    default:
      return at(path, 'invalid_value', `${describeRule(error, schema)}.`);
  }
}

function at(field: string, code: ErrorCode, what: string): ApiError {
  return new ApiError(code, { param: field, message: `${field}: ${what}` });
}

/** ajv's JSON Pointer (`/messages/2/content/0`) → Anthropic's notation (`messages.2.content.0`). */
function messagesPath(pointer: string): string {
  if (pointer === '') return '';
  return pointer.slice(1).split('/').map((segment) => clip(segment.replaceAll('~1', '/').replaceAll('~0', '~'))).join('.');
}

function join(path: string, key: string): string {
  return path === '' ? clip(key) : `${path}.${clip(key)}`;
}

function clip(key: string): string {
  return key.length > MAX_SHOWN_KEY_CHARS ? `${key.slice(0, MAX_SHOWN_KEY_CHARS)}…` : key;
}

function valueAt(root: unknown, pointer: string, key: string): unknown {
  let node = root;
  for (const segment of pointer.slice(1).split('/')) {
    if (segment === '' || typeof node !== 'object' || node === null) break;
    node = (node as Record<string, unknown>)[segment.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
}
