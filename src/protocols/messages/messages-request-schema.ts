// JSON Schema (draft-07 keywords, compiled by ajv 8 with its discriminator) of POST /v1/messages, from
// Anthropic's API (@anthropic-ai/sdk MessageCreateParamsBase). Every object lists its fields: anything
// else is refused, as Anthropic refuses it. Block types are told apart by `type`; the rules between
// blocks and roles, and what a chat model cannot take, are checked in to-chat-body.ts.

const MAX_INT32 = 2 ** 31 - 1;
/** The chat API's rule for function names, which every tool here becomes. */
const TOOL_NAME_PATTERN = '^[a-zA-Z0-9_-]{1,64}$';
const ID = { type: 'string', minLength: 1, maxLength: 256 } as const;

/** An object checked against the one schema of `oneOf` whose `type` is its own. */
const BY_TYPE = { type: 'object', required: ['type'], properties: { type: { type: 'string' } }, discriminator: { propertyName: 'type' } } as const;

const CACHE_CONTROL = {
  type: ['object', 'null'],
  required: ['type'],
  additionalProperties: false,
  properties: { type: { type: 'string', const: 'ephemeral' }, ttl: { type: 'string', enum: ['5m', '1h'] } },
} as const;

const TEXT_BLOCK = {
  type: 'object',
  required: ['type', 'text'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', const: 'text' },
    text: { type: 'string' },
    cache_control: CACHE_CONTROL,
    citations: { type: ['array', 'null'] },
  },
} as const;

const IMAGE_BLOCK = {
  type: 'object',
  required: ['type', 'source'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', const: 'image' },
    source: {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      properties: {
        type: { type: 'string', enum: ['base64', 'url', 'file'] },
        media_type: { type: 'string', enum: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] },
        data: { type: 'string' },
        url: { type: 'string', minLength: 1 },
        file_id: { type: 'string' },
      },
    },
    cache_control: CACHE_CONTROL,
  },
} as const;

// Only named here so that the refusal can say what it is: no model behind the chat pipeline reads documents.
const DOCUMENT_BLOCK = { type: 'object', required: ['type'], properties: { type: { type: 'string', const: 'document' } } } as const;

// Claude Code's tool search answers with these: they load a deferred tool into the offer.
const TOOL_REFERENCE_BLOCK = {
  type: 'object',
  required: ['type', 'tool_name'],
  additionalProperties: false,
  properties: { type: { type: 'string', const: 'tool_reference' }, tool_name: { type: 'string', pattern: TOOL_NAME_PATTERN }, cache_control: CACHE_CONTROL },
} as const;

const TOOL_USE_BLOCK = {
  type: 'object',
  required: ['type', 'id', 'name', 'input'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', const: 'tool_use' },
    id: ID,
    name: { type: 'string', pattern: TOOL_NAME_PATTERN },
    input: { type: 'object' },
    cache_control: CACHE_CONTROL,
    caller: { type: 'object' },
  },
} as const;

const TOOL_RESULT_BLOCK = {
  type: 'object',
  required: ['type', 'tool_use_id'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', const: 'tool_result' },
    tool_use_id: ID,
    content: {
      type: ['string', 'array'],
      items: { ...BY_TYPE, oneOf: [TEXT_BLOCK, IMAGE_BLOCK, DOCUMENT_BLOCK, TOOL_REFERENCE_BLOCK] },
    },
    is_error: { type: 'boolean' },
    cache_control: CACHE_CONTROL,
  },
} as const;

const THINKING_BLOCK = {
  type: 'object',
  required: ['type', 'thinking', 'signature'],
  additionalProperties: false,
  properties: { type: { type: 'string', const: 'thinking' }, thinking: { type: 'string' }, signature: { type: 'string' } },
} as const;

const REDACTED_THINKING_BLOCK = {
  type: 'object',
  required: ['type', 'data'],
  additionalProperties: false,
  properties: { type: { type: 'string', const: 'redacted_thinking' }, data: { type: 'string' } },
} as const;

const CONTENT_BLOCK = {
  ...BY_TYPE,
  oneOf: [TEXT_BLOCK, IMAGE_BLOCK, DOCUMENT_BLOCK, TOOL_USE_BLOCK, TOOL_RESULT_BLOCK, THINKING_BLOCK, REDACTED_THINKING_BLOCK],
} as const;

const MESSAGE = {
  type: 'object',
  required: ['role', 'content'],
  additionalProperties: false,
  properties: {
    role: { type: 'string', enum: ['user', 'assistant', 'system'] },
    content: { type: ['string', 'array'], maxItems: 10_000, items: CONTENT_BLOCK },
  },
} as const;

const TOOL = {
  type: 'object',
  required: ['name', 'input_schema'],
  additionalProperties: false,
  properties: {
    // Anthropic's server and built-in tools have another type: refused before this (to-chat-body.ts).
    type: { type: ['string', 'null'], enum: ['custom', null] },
    name: { type: 'string', pattern: TOOL_NAME_PATTERN },
    description: { type: 'string' },
    input_schema: { type: 'object', required: ['type'], properties: { type: { type: 'string', const: 'object' } } },
    cache_control: CACHE_CONTROL,
    defer_loading: { type: 'boolean' },
    strict: { type: 'boolean' },
    input_examples: { type: 'array', items: { type: 'object' } },
    eager_input_streaming: { type: ['boolean', 'null'] },
    allowed_callers: { type: 'array', items: { type: 'string' } },
  },
} as const;

const PARALLEL = { disable_parallel_tool_use: { type: 'boolean' } } as const;

const TOOL_CHOICE = {
  ...BY_TYPE,
  oneOf: [
    { type: 'object', additionalProperties: false, properties: { type: { type: 'string', const: 'auto' }, ...PARALLEL } },
    { type: 'object', additionalProperties: false, properties: { type: { type: 'string', const: 'any' }, ...PARALLEL } },
    { type: 'object', required: ['name'], additionalProperties: false, properties: { type: { type: 'string', const: 'tool' }, name: { type: 'string', pattern: TOOL_NAME_PATTERN }, ...PARALLEL } },
    { type: 'object', additionalProperties: false, properties: { type: { type: 'string', const: 'none' } } },
  ],
} as const;

const THINKING = {
  type: 'object',
  required: ['type'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: ['enabled', 'disabled', 'adaptive', 'between_tools'] },
    budget_tokens: { type: 'integer', minimum: 1, maximum: MAX_INT32 },
    display: { type: ['string', 'null'], enum: ['summarized', 'omitted', null] },
  },
} as const;

const OUTPUT_CONFIG = {
  type: 'object',
  additionalProperties: false,
  properties: {
    effort: { type: ['string', 'null'], enum: ['low', 'medium', 'high', 'xhigh', 'max', null] },
    format: {
      type: ['object', 'null'],
      required: ['type', 'schema'],
      additionalProperties: false,
      properties: { type: { type: 'string', const: 'json_schema' }, schema: { type: 'object' } },
    },
  },
} as const;

const PROPERTIES = {
  model: { type: 'string', minLength: 1, maxLength: 256 },
  max_tokens: { type: 'integer', minimum: 1, maximum: MAX_INT32 },
  messages: { type: 'array', minItems: 1, maxItems: 10_000, items: MESSAGE },
  system: { type: ['string', 'array'], maxItems: 1024, items: TEXT_BLOCK },
  metadata: { type: 'object', additionalProperties: false, properties: { user_id: { type: ['string', 'null'], maxLength: 512 } } },
  // The chat API's bound: the same stop sequences go to every model.
  stop_sequences: { type: 'array', maxItems: 4, items: { type: 'string', minLength: 1 } },
  stream: { type: 'boolean' },
  temperature: { type: 'number', minimum: 0, maximum: 1 },
  top_p: { type: 'number', minimum: 0, maximum: 1 },
  top_k: { type: ['integer', 'null'], minimum: 0 },
  tools: { type: 'array', maxItems: 128, items: TOOL },
  tool_choice: TOOL_CHOICE,
  thinking: THINKING,
  // Edits of the context that Anthropic applies (clearing old thinking or tool results): taken, not applied.
  context_management: { type: ['object', 'null'] },
  output_config: OUTPUT_CONFIG,
  cache_control: CACHE_CONTROL,
  service_tier: { type: 'string', enum: ['auto', 'standard_only'] },
} as const;

export const MESSAGES_REQUEST_SCHEMA = {
  type: 'object',
  required: ['model', 'max_tokens', 'messages'],
  additionalProperties: false,
  properties: PROPERTIES,
} as const;

/** POST /v1/messages/count_tokens: the same body without max_tokens, which it does not need. */
export const COUNT_TOKENS_SCHEMA = {
  ...MESSAGES_REQUEST_SCHEMA,
  required: ['model', 'messages'],
} as const;
