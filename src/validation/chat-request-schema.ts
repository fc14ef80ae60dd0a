// JSON Schema (draft-07 keywords, compiled by ajv 8) of POST /v1/chat/completions.
// Ranges from OpenAI's API (openai-node ChatCompletionCreateParamsBase); a field is nullable
// exactly where the SDK types allow null. Every object lists its fields: anything else is refused.

const MAX_INT32 = 2 ** 31 - 1;
const TOOL_NAME_PATTERN = '^[a-zA-Z0-9_-]{1,64}$';

export const MESSAGE_ROLES = ['system', 'developer', 'user', 'assistant'] as const;

// The plain message: string content. Requests made only of these are checked by this schema alone.
const MESSAGE_SCHEMA = {
  type: 'object',
  required: ['role', 'content'],
  additionalProperties: false,
  properties: {
    role: { type: 'string', enum: MESSAGE_ROLES },
    content: { type: 'string' },
    name: { type: 'string', minLength: 1, maxLength: 64 },
    refusal: { type: 'null' },
  },
} as const;

const TOOL_CALL_SCHEMA = {
  type: 'object',
  required: ['id', 'type', 'function'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 256 },
    type: { type: 'string', const: 'function' },
    function: {
      type: 'object',
      required: ['name', 'arguments'],
      additionalProperties: false,
      properties: { name: { type: 'string', pattern: TOOL_NAME_PATTERN }, arguments: { type: 'string' } },
    },
  },
} as const;

// `annotations`, `refusal` and `role` are what SDKs copy into the parts of an earlier reply they
// send back (OpenAI accepts them there); they change nothing about the text.
const CONTENT_PART_SCHEMA = {
  type: 'object',
  required: ['type'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: ['text', 'image_url', 'refusal'] },
    text: { type: 'string' },
    refusal: { type: ['string', 'null'] },
    annotations: { type: 'array', maxItems: 1024 },
    role: { type: 'string', enum: ['assistant', 'user', 'system', 'developer'] },
    image_url: {
      type: 'object',
      required: ['url'],
      additionalProperties: false,
      properties: { url: { type: 'string', minLength: 1 }, detail: { type: 'string', enum: ['auto', 'low', 'high'] } },
    },
  },
} as const;

// Every message shape OpenAI's interface has for text and tools: the tool turn (`role: "tool"`), an
// assistant turn carrying `tool_calls` (content may then be null), and content-part arrays (which
// only models that opt in accept). The rules between fields are checked in conversation-rules.ts.
const ANY_MESSAGE_SCHEMA = {
  type: 'object',
  required: ['role'],
  additionalProperties: false,
  properties: {
    role: { type: 'string', enum: [...MESSAGE_ROLES, 'tool'] },
    content: { type: ['string', 'null', 'array'], maxItems: 1024, items: CONTENT_PART_SCHEMA },
    name: { type: 'string', minLength: 1, maxLength: 64 },
    refusal: { type: ['string', 'null'] },
    tool_calls: { type: 'array', minItems: 1, maxItems: 128, items: TOOL_CALL_SCHEMA },
    tool_call_id: { type: 'string', minLength: 1, maxLength: 256 },
  },
} as const;

const FUNCTION_TOOL_SCHEMA = {
  type: 'object',
  required: ['type', 'function'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', const: 'function' },
    function: {
      type: 'object',
      required: ['name'],
      additionalProperties: false,
      properties: {
        name: { type: 'string', pattern: TOOL_NAME_PATTERN },
        description: { type: 'string' },
        parameters: { type: 'object' },
        strict: { type: ['boolean', 'null'] },
      },
    },
  },
} as const;

const TOOL_CHOICE_SCHEMA = {
  type: ['string', 'object'],
  if: { type: 'string' },
  then: { enum: ['none', 'auto', 'required'] },
  else: {
    required: ['type', 'function'],
    additionalProperties: false,
    properties: {
      type: { type: 'string', const: 'function' },
      function: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: { name: { type: 'string', pattern: TOOL_NAME_PATTERN } },
      },
    },
  },
} as const;

const RESPONSE_FORMAT_SCHEMA = {
  type: 'object',
  required: ['type'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: ['text', 'json_object', 'json_schema'] },
    json_schema: {
      type: 'object',
      required: ['name'],
      additionalProperties: false,
      properties: {
        name: { type: 'string', pattern: TOOL_NAME_PATTERN },
        description: { type: 'string' },
        schema: { type: 'object' },
        strict: { type: ['boolean', 'null'] },
      },
    },
  },
} as const; // `json_schema` is required with type json_schema: checked in code (strictRequired forbids if/then here).

const PREDICTION_SCHEMA = {
  type: ['object', 'null'],
  required: ['type', 'content'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', const: 'content' },
    content: {
      type: ['string', 'array'],
      items: {
        type: 'object',
        required: ['type', 'text'],
        additionalProperties: false,
        properties: { type: { type: 'string', const: 'text' }, text: { type: 'string' } },
      },
    },
  },
} as const;

export const CHAT_REQUEST_SCHEMA = {
  type: 'object',
  required: ['model', 'messages'],
  additionalProperties: false,
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 256 },
    messages: { type: 'array', minItems: 1, maxItems: 10_000, items: MESSAGE_SCHEMA },
    temperature: { type: ['number', 'null'], minimum: 0, maximum: 2 },
    top_p: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    presence_penalty: { type: ['number', 'null'], minimum: -2, maximum: 2 },
    frequency_penalty: { type: ['number', 'null'], minimum: -2, maximum: 2 },
    max_tokens: { type: ['integer', 'null'], minimum: 1, maximum: MAX_INT32 },
    max_completion_tokens: { type: ['integer', 'null'], minimum: 1, maximum: MAX_INT32 },
    n: { type: ['integer', 'null'], minimum: 1, maximum: 128 },
    // An empty stop string would match at every position, so it is refused.
    stop: { type: ['string', 'array', 'null'], minLength: 1, minItems: 1, maxItems: 4, items: { type: 'string', minLength: 1 } },
    seed: { type: ['integer', 'null'], minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
    user: { type: 'string', maxLength: 256 },
    stream: { type: ['boolean', 'null'] },
    stream_options: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: { include_usage: { type: 'boolean' }, include_obfuscation: { type: 'boolean' } },
    },
    logit_bias: {
      type: ['object', 'null'],
      maxProperties: 1024,
      propertyNames: { type: 'string', pattern: '^(0|[1-9][0-9]{0,9})$' },
      additionalProperties: { type: 'number', minimum: -100, maximum: 100 },
    },
    logprobs: { type: ['boolean', 'null'] },
    top_logprobs: { type: ['integer', 'null'], minimum: 0, maximum: 20 },
    response_format: RESPONSE_FORMAT_SCHEMA,
    tools: { type: 'array', maxItems: 128, items: FUNCTION_TOOL_SCHEMA },
    tool_choice: TOOL_CHOICE_SCHEMA,
    parallel_tool_calls: { type: 'boolean' },
    metadata: {
      type: ['object', 'null'],
      maxProperties: 16,
      propertyNames: { type: 'string', maxLength: 64 },
      additionalProperties: { type: 'string', maxLength: 512 },
    },
    store: { type: ['boolean', 'null'] },
    service_tier: { type: ['string', 'null'], enum: ['auto', 'default', 'flex', 'scale', 'priority', 'fast', null] },
    reasoning_effort: { type: ['string', 'null'], enum: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max', null] },
    safety_identifier: { type: ['string', 'null'], maxLength: 64 },
    prompt_cache_key: { type: ['string', 'null'], maxLength: 1024 },
    modalities: { type: ['array', 'null'], maxItems: 2, uniqueItems: true, items: { type: 'string', enum: ['text', 'audio'] } },
    verbosity: { type: ['string', 'null'], enum: ['low', 'medium', 'high', null] },
    prediction: PREDICTION_SCHEMA,
  },
} as const;

/** The same body with every message shape: checked only when the plain schema refuses a body. */
export const ANY_CHAT_REQUEST_SCHEMA = {
  ...CHAT_REQUEST_SCHEMA,
  properties: {
    ...CHAT_REQUEST_SCHEMA.properties,
    messages: { ...CHAT_REQUEST_SCHEMA.properties.messages, items: ANY_MESSAGE_SCHEMA },
  },
} as const;
