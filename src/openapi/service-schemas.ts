// /health and /readyz answers, and the /mcp transport's JSON-RPC messages.

export const HEALTH_SCHEMA = {
  type: 'object',
  required: ['status'],
  properties: { status: { const: 'ok' } },
} as const;

export const READINESS_SCHEMA = {
  type: 'object',
  required: ['status'],
  properties: {
    status: { const: 'ready' },
    redis: { enum: ['up', 'down'], description: 'With a Redis store: whether it answers. A lost Redis keeps the instance ready.' },
  },
} as const;

const JSON_RPC_MESSAGE = {
  type: 'object',
  required: ['jsonrpc'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer', 'null'] },
    method: { type: 'string' },
    params: { type: 'object' },
    result: { type: 'object' },
    error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' } } },
  },
} as const;

/** A JSON-RPC 2.0 message or batch, as the MCP Streamable HTTP transport carries them. */
export const JSON_RPC_SCHEMA = { anyOf: [JSON_RPC_MESSAGE, { type: 'array', minItems: 1, items: JSON_RPC_MESSAGE }] } as const;
