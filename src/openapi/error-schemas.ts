// The error bodies (SPEC section 7): the API's own, and Anthropic's shape on the Messages API. The
// codes and types come from the catalogue, so a new code is documented the moment it exists.
import { ERROR_CATALOGUE } from '../errors/catalogue.ts';
import { ANTHROPIC_ERROR_TYPES } from '../protocols/messages/anthropic-errors.ts';

const codes = Object.keys(ERROR_CATALOGUE);
const types = [...new Set(Object.values(ERROR_CATALOGUE).map((entry) => entry.type))];

export const ERROR_SCHEMA = {
  type: 'object',
  description: 'Every error this API answers with. Clients branch on the HTTP status and `error.code`; `message` may change.',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'code'],
      properties: {
        message: { type: 'string' },
        type: { type: 'string', enum: types },
        param: { type: ['string', 'null'], description: 'The request field at fault, as `messages[0].role`.' },
        code: { type: 'string', enum: codes },
      },
    },
  },
} as const;

export const ANTHROPIC_ERROR_SCHEMA = {
  type: 'object',
  description: "An error in Anthropic's shape: on /v1/messages, and on /v1/models for a request with `anthropic-version`.",
  required: ['type', 'error'],
  properties: {
    type: { const: 'error' },
    error: {
      type: 'object',
      required: ['type', 'message'],
      properties: {
        type: { type: 'string', enum: [...new Set(Object.values(ANTHROPIC_ERROR_TYPES))] },
        message: { type: 'string' },
      },
    },
    request_id: { type: 'string' },
  },
} as const;

/** SPEC 7.2: what each status means. */
export const ERROR_STATUSES = {
  400: 'Invalid request: bad JSON, wrong Content-Type, a field missing or out of range, ambiguous framing.',
  401: 'Authentication failed: the key is missing, malformed, invalid or revoked.',
  403: 'Access denied: the account or key may not do this.',
  404: 'Not found.',
  408: 'The request body did not arrive in time.',
  413: 'The request body is too large.',
  429: 'Rate limit reached; honour Retry-After.',
  500: 'Internal server failure.',
  502: 'The model server failed to answer.',
  503: 'Temporarily unavailable: starting, draining, overloaded, or a dependency is down.',
  504: 'The model server did not answer in time.',
} as const;

export type ErrorStatus = keyof typeof ERROR_STATUSES;

/** Which error body an operation answers with. */
/** `either`: the API's or Anthropic's; `mcp`: the API's, or the MCP transport's JSON-RPC error. */
export type ErrorShape = 'api' | 'anthropic' | 'either' | 'mcp';

const SHAPE_SCHEMA: Record<ErrorShape, Record<string, unknown>> = {
  api: { $ref: '#/components/schemas/Error' },
  anthropic: { $ref: '#/components/schemas/AnthropicError' },
  either: { anyOf: [{ $ref: '#/components/schemas/Error' }, { $ref: '#/components/schemas/AnthropicError' }] },
  mcp: { anyOf: [{ $ref: '#/components/schemas/Error' }, { $ref: '#/components/schemas/JsonRpc' }] },
};

const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } } };

export function errorResponse(status: ErrorStatus, shape: ErrorShape): Record<string, unknown> {
  return {
    description: ERROR_STATUSES[status],
    ...(status === 429 ? { headers: RETRY_AFTER } : {}),
    content: { 'application/json': { schema: SHAPE_SCHEMA[shape] } },
  };
}
