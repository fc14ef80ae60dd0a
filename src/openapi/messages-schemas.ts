// The Messages API's answers, in Anthropic's shapes: a Message, a token count, and stream events.
// A model server that speaks this API is relayed as it answers: only what every answer has is required.

const usage = {
  type: 'object',
  required: ['input_tokens', 'output_tokens'],
  properties: { input_tokens: { type: 'integer', minimum: 0 }, output_tokens: { type: 'integer', minimum: 0 } },
} as const;

export const MESSAGE_SCHEMA = {
  type: 'object',
  required: ['id', 'type', 'role', 'content'],
  properties: {
    id: { type: 'string' },
    type: { const: 'message' },
    role: { const: 'assistant' },
    model: { type: 'string' },
    content: { type: 'array', items: { type: 'object', required: ['type'], properties: { type: { enum: ['text', 'thinking', 'tool_use', 'redacted_thinking'] } } } },
    stop_reason: { type: ['string', 'null'] },
    stop_sequence: { type: ['string', 'null'] },
    usage,
  },
} as const;

export const TOKEN_COUNT_SCHEMA = {
  type: 'object',
  required: ['input_tokens'],
  properties: { input_tokens: { type: 'integer', minimum: 0 } },
} as const;

/** One event's data; the event's name is its `type`. */
export const MESSAGE_STREAM_EVENT_SCHEMA = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { enum: ['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop', 'ping', 'error'] },
  },
  if: { properties: { type: { const: 'error' } } },
  then: { $ref: '#/components/schemas/AnthropicError' },
} as const;
