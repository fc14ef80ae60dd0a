// POST /v1/chat/completions' answers (SPEC 2.5 and 6): a chat.completion, or a stream of
// chat.completion.chunk events ended by `[DONE]`. A model server's extra fields pass through, so
// objects admit more properties than listed.

const usage = {
  type: 'object',
  required: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
  properties: {
    prompt_tokens: { type: 'integer', minimum: 0 },
    completion_tokens: { type: 'integer', minimum: 0 },
    total_tokens: { type: 'integer', minimum: 0 },
  },
} as const;

const toolCall = {
  type: 'object',
  required: ['id', 'type', 'function'],
  properties: {
    id: { type: 'string' },
    type: { const: 'function' },
    function: { type: 'object', required: ['name', 'arguments'], properties: { name: { type: 'string' }, arguments: { type: 'string' } } },
  },
} as const;

const finishReason = { type: ['string', 'null'], description: 'Why generation stopped: commonly `stop` or `length`; `tool_calls` when the reply calls tools.' } as const;

export const CHAT_COMPLETION_SCHEMA = {
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices'],
  properties: {
    id: { type: 'string' },
    object: { const: 'chat.completion' },
    created: { type: 'integer', description: 'Unix seconds.' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'message', 'finish_reason'],
        properties: {
          index: { type: 'integer', minimum: 0 },
          message: {
            type: 'object',
            required: ['role', 'content'],
            properties: {
              role: { const: 'assistant' },
              content: { type: ['string', 'null'] },
              tool_calls: { type: 'array', items: toolCall },
            },
          },
          finish_reason: finishReason,
        },
      },
    },
    usage: { anyOf: [usage, { type: 'null' }] },
  },
} as const;

export const CHAT_COMPLETION_CHUNK_SCHEMA = {
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices'],
  properties: {
    id: { type: 'string' },
    object: { const: 'chat.completion.chunk' },
    created: { type: 'integer' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'delta'],
        properties: {
          index: { type: 'integer', minimum: 0 },
          delta: {
            type: 'object',
            properties: {
              role: { const: 'assistant' },
              content: { type: ['string', 'null'] },
              tool_calls: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['index'],
                  properties: {
                    index: { type: 'integer', minimum: 0 },
                    id: { type: 'string' },
                    type: { const: 'function' },
                    function: { type: 'object', properties: { name: { type: 'string' }, arguments: { type: 'string' } } },
                  },
                },
              },
            },
          },
          finish_reason: finishReason,
        },
      },
    },
    usage: { anyOf: [usage, { type: 'null' }], description: 'On the last chunk, with no choices, when `stream_options.include_usage` is true.' },
  },
} as const;

/** One `data:` of a chat stream: a chunk, an error that ends it, or the literal `[DONE]` last. */
export const CHAT_STREAM_DATA_SCHEMA = {
  anyOf: [{ $ref: '#/components/schemas/ChatCompletionChunk' }, { $ref: '#/components/schemas/Error' }, { const: '[DONE]' }],
} as const;
