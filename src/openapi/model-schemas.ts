// GET /v1/models and /v1/models/{id} (SPEC 2.1, 2.2), and the same in Anthropic's shape for a
// request that sends `anthropic-version`.

export const MODEL_SCHEMA = {
  type: 'object',
  required: ['id', 'object', 'owned_by'],
  properties: {
    id: { type: 'string', description: 'The id a chat request names in `model`.' },
    object: { const: 'model' },
    created: { type: 'integer' },
    owned_by: { type: 'string' },
  },
} as const;

export const MODEL_LIST_SCHEMA = {
  type: 'object',
  required: ['object', 'data'],
  properties: { object: { const: 'list' }, data: { type: 'array', items: { $ref: '#/components/schemas/Model' } } },
} as const;

export const ANTHROPIC_MODEL_SCHEMA = {
  type: 'object',
  required: ['type', 'id', 'display_name', 'created_at'],
  properties: {
    type: { const: 'model' },
    id: { type: 'string' },
    display_name: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    max_input_tokens: { type: ['integer', 'null'] },
    max_tokens: { type: ['integer', 'null'] },
  },
} as const;

export const ANTHROPIC_MODEL_LIST_SCHEMA = {
  type: 'object',
  required: ['data', 'has_more', 'first_id', 'last_id'],
  properties: {
    data: { type: 'array', items: { $ref: '#/components/schemas/AnthropicModel' } },
    has_more: { type: 'boolean' },
    first_id: { type: ['string', 'null'] },
    last_id: { type: ['string', 'null'] },
  },
} as const;
