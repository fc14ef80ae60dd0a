// The Responses API request body as this service accepts it (POST /v1/responses). Fields that would
// change the output and cannot be honoured are refused after validation (responses-request.ts),
// with a message naming them; the ones that change nothing here (reasoning on a model without
// it, include of encrypted reasoning, caching hints) are accepted.

const TEXT_PART = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string' },
    text: { type: 'string' },
    annotations: { type: 'array' },
    logprobs: { type: 'array' },
    refusal: { type: 'string' },
  },
} as const;

const METADATA = { type: ['object', 'null'], additionalProperties: { type: 'string', maxLength: 512 }, maxProperties: 16 } as const;

const INPUT_ITEM = {
  type: 'object',
  properties: {
    type: { type: 'string' },
    role: { type: 'string' },
    content: { anyOf: [{ type: 'string' }, { type: 'array', items: TEXT_PART }] },
    id: { type: 'string' },
    status: { type: 'string' },
    call_id: { type: 'string', minLength: 1 },
    name: { type: 'string', minLength: 1 },
    arguments: { type: 'string' },
    output: { anyOf: [{ type: 'string' }, { type: 'array', items: TEXT_PART }] },
  },
} as const;

const TOOL = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string' },
    name: { type: 'string', minLength: 1, maxLength: 64 },
    description: { type: ['string', 'null'] },
    parameters: { type: ['object', 'null'] },
    strict: { type: ['boolean', 'null'] },
  },
} as const;

const TEXT_FORMAT = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { enum: ['text', 'json_object', 'json_schema'] },
    name: { type: 'string', minLength: 1, maxLength: 64 },
    schema: { type: 'object' },
    description: { type: 'string' },
    strict: { type: ['boolean', 'null'] },
  },
  additionalProperties: false,
} as const;

export const RESPONSES_REQUEST_SCHEMA = {
  type: 'object',
  required: ['model', 'input'],
  additionalProperties: false,
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 256 },
    input: { anyOf: [{ type: 'string' }, { type: 'array', items: INPUT_ITEM, minItems: 1 }] },
    instructions: { type: ['string', 'null'] },
    tools: { type: 'array', items: TOOL },
    tool_choice: {
      anyOf: [
        { enum: ['none', 'auto', 'required'] },
        { type: 'object', required: ['type'], properties: { type: { type: 'string' }, name: { type: 'string' } } },
      ],
    },
    parallel_tool_calls: { type: ['boolean', 'null'] },
    text: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: { format: TEXT_FORMAT, verbosity: { enum: ['low', 'medium', 'high', null] } },
    },
    max_output_tokens: { type: ['integer', 'null'], minimum: 1 },
    temperature: { type: ['number', 'null'], minimum: 0, maximum: 2 },
    top_p: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    metadata: METADATA,
    store: { type: ['boolean', 'null'] },
    previous_response_id: { type: ['string', 'null'], minLength: 1, maxLength: 128 },
    stream: { type: ['boolean', 'null'] },
    stream_options: { type: ['object', 'null'], properties: { include_obfuscation: { type: 'boolean' } }, additionalProperties: false },
    user: { type: 'string', maxLength: 256 },
    safety_identifier: { type: ['string', 'null'], maxLength: 256 },
    prompt_cache_key: { type: ['string', 'null'], maxLength: 1024 },
    prompt_cache_retention: { enum: ['in_memory', '24h', null] },
    client_metadata: { type: ['object', 'null'] },
    include: { type: ['array', 'null'], items: { type: 'string' } },
    reasoning: {
      type: ['object', 'null'],
      properties: {
        effort: { enum: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', null] },
        summary: { enum: ['auto', 'concise', 'detailed', null] },
        generate_summary: { enum: ['auto', 'concise', 'detailed', null] },
      },
    },
    service_tier: { enum: ['auto', 'default', 'flex', 'scale', 'priority', null] },
    truncation: { enum: ['auto', 'disabled', null] },
    background: { type: ['boolean', 'null'] },
    max_tool_calls: { type: ['integer', 'null'], minimum: 1 },
    top_logprobs: { type: ['integer', 'null'], minimum: 0, maximum: 20 },
    conversation: {},
    prompt: {},
  },
} as const;
