// The Responses API's answers: the Response object (a reply, GET /v1/responses/{id}, and inside
// the stream's lifecycle events), a stored response's input items, a deletion, and stream events.
// A model server that speaks this API is relayed as it answers: only what every answer has is required.

const item = { type: 'object', required: ['type'], properties: { type: { type: 'string' }, id: { type: 'string' } } } as const;

export const RESPONSE_SCHEMA = {
  type: 'object',
  required: ['id', 'object', 'status'],
  properties: {
    id: { type: 'string' },
    object: { const: 'response' },
    created_at: { type: 'integer' },
    status: { enum: ['in_progress', 'completed', 'incomplete', 'failed'] },
    completed_at: { type: ['integer', 'null'] },
    error: { anyOf: [{ type: 'null' }, { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } }] },
    incomplete_details: { anyOf: [{ type: 'null' }, { type: 'object', properties: { reason: { type: 'string' } } }] },
    model: { type: 'string' },
    output: { type: 'array', items: item },
    store: { type: 'boolean' },
    usage: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['input_tokens', 'output_tokens', 'total_tokens'],
          properties: { input_tokens: { type: 'integer' }, output_tokens: { type: 'integer' }, total_tokens: { type: 'integer' } },
        },
      ],
    },
  },
} as const;

export const RESPONSE_DELETED_SCHEMA = {
  type: 'object',
  required: ['id', 'object', 'deleted'],
  properties: { id: { type: 'string' }, object: { const: 'response.deleted' }, deleted: { const: true } },
} as const;

export const RESPONSE_INPUT_ITEMS_SCHEMA = {
  type: 'object',
  required: ['object', 'data', 'first_id', 'last_id', 'has_more'],
  properties: {
    object: { const: 'list' },
    data: { type: 'array', items: item },
    first_id: { type: ['string', 'null'] },
    last_id: { type: ['string', 'null'] },
    has_more: { type: 'boolean' },
  },
} as const;

const LIFECYCLE = ['response.created', 'response.in_progress', 'response.completed', 'response.incomplete', 'response.failed'];

/** One event's data; the event's name is its `type`. Lifecycle events carry the whole Response. */
export const RESPONSE_STREAM_EVENT_SCHEMA = {
  type: 'object',
  required: ['type', 'sequence_number'],
  properties: { type: { type: 'string', pattern: '^response\\.' }, sequence_number: { type: 'integer', minimum: 0 } },
  if: { properties: { type: { enum: LIFECYCLE } } },
  then: { required: ['response'], properties: { response: { $ref: '#/components/schemas/Response' } } },
} as const;
