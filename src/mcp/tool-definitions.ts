// The tools as tools/list describes them: names, descriptions, and JSON Schemas for arguments and
// structured results. Plain JSON Schema (the low-level SDK server takes it as is), so the SDK's zod
// peer dependency never becomes ours.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

export const CHAT_COMPLETION = 'chat_completion';
export const LIST_MODELS = 'list_models';

const usageSchema = {
  type: 'object',
  properties: {
    prompt_tokens: { type: 'integer', description: 'Tokens of the messages.' },
    completion_tokens: { type: 'integer', description: 'Tokens of the reply.' },
    total_tokens: { type: 'integer' },
  },
  required: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
} as const;

type OutputSchema = NonNullable<Tool['outputSchema']>;

const chatCompletionOutput: OutputSchema = {
  type: 'object',
  properties: {
    text: { type: 'string', description: 'The assistant reply (the same as the text content).' },
    model: { type: 'string', description: 'The model id that was asked for.' },
    finish_reason: { type: 'string', description: '"stop" when the reply ended naturally, "length" when max_tokens cut it short, "tool_calls" when the model calls tools.' },
    usage: usageSchema,
    tool_calls: {
      type: 'array',
      description: 'The tools the model calls (when finish_reason is "tool_calls"): answer each with a message of role "tool" carrying its id as tool_call_id.',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          type: { type: 'string', const: 'function' },
          function: { type: 'object', properties: { name: { type: 'string' }, arguments: { type: 'string', description: 'JSON text.' } }, required: ['name', 'arguments'] },
        },
        required: ['id', 'type', 'function'],
      },
    },
  },
  required: ['text', 'model', 'finish_reason', 'usage'],
};

const listModelsOutput: OutputSchema = {
  type: 'object',
  properties: {
    models: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          description: { type: 'string' },
          context_tokens: { type: 'integer', description: 'Messages plus reply must fit in this many tokens.' },
          max_output_tokens: { type: 'integer', description: 'The largest max_tokens this model accepts.' },
        },
        required: ['id', 'description', 'context_tokens', 'max_output_tokens'],
      },
    },
  },
  required: ['models'],
};

const toolCallSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    type: { type: 'string', const: 'function' },
    function: { type: 'object', properties: { name: { type: 'string' }, arguments: { type: 'string' } }, required: ['name', 'arguments'] },
  },
  required: ['id', 'type', 'function'],
} as const;

const messageSchema = {
  type: 'object',
  properties: {
    role: { type: 'string', enum: ['system', 'developer', 'user', 'assistant', 'tool'] },
    content: { type: ['string', 'null'], description: 'The text; null only on an assistant message with tool_calls.' },
    tool_calls: { type: 'array', items: toolCallSchema, description: 'On an assistant message: the calls it made (as a previous result returned them).' },
    tool_call_id: { type: 'string', description: 'On a tool message: the id of the call it answers.' },
  },
  required: ['role'],
} as const;

const functionToolSchema = {
  type: 'object',
  properties: {
    type: { type: 'string', const: 'function' },
    function: {
      type: 'object',
      properties: {
        name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
        description: { type: 'string' },
        parameters: { type: 'object', description: 'A JSON Schema of the arguments.' },
      },
      required: ['name'],
    },
  },
  required: ['type', 'function'],
} as const;

/** The tools, with `model` limited to the ids this key may use. */
export function toolDefinitions(modelIds: readonly string[]): Tool[] {
  return [
    {
      name: CHAT_COMPLETION,
      title: 'Chat completion',
      description:
        'Generates an assistant reply with one of the models of this Munja service, exactly as POST /v1/chat/completions does. ' +
        'Give either `prompt` (a single user message) or `messages` (a conversation, oldest first, optionally starting with a system message). ' +
        'Returns the reply text; the structured result adds the model, finish_reason ("length" means max_tokens cut the reply short) and token usage. ' +
        'With `tools`, the model may call them instead: the result then lists tool_calls, and the next call sends the conversation back with that assistant message and one "tool" message per call. ' +
        "Each call counts against this key's rate limits and token usage. Call list_models to see the models and their limits.",
      inputSchema: {
        type: 'object',
        properties: {
          model: { type: 'string', ...(modelIds.length > 0 ? { enum: [...modelIds] } : {}), description: 'The model id. list_models describes each one.' },
          prompt: { type: 'string', description: 'A single user message. Give this or `messages`, not both.' },
          messages: { type: 'array', minItems: 1, items: messageSchema, description: 'The conversation so far, oldest first. Give this or `prompt`, not both.' },
          temperature: { type: 'number', minimum: 0, maximum: 2, description: 'Sampling temperature, 0–2: lower is more deterministic. Default 1.' },
          max_tokens: { type: 'integer', minimum: 1, description: "Upper bound on the reply's length in tokens; at most the model's max_output_tokens." },
          seed: { type: 'integer', description: 'The same seed and request give the same reply (on the built-in engine).' },
          tools: { type: 'array', items: functionToolSchema, description: 'Functions the model may call, as in the OpenAI Chat Completions API.' },
          tool_choice: {
            description: '"auto" (default with tools), "none", "required", or {"type": "function", "function": {"name": …}}.',
            anyOf: [{ type: 'string', enum: ['auto', 'none', 'required'] }, { type: 'object' }],
          },
          parallel_tool_calls: { type: 'boolean', description: 'Whether the model may call several tools at once. Default true.' },
          response_format: {
            type: 'object',
            description: '{"type": "json_object"} for a JSON object, or {"type": "json_schema", "json_schema": {"name": …, "schema": {…}}} for JSON valid against a schema.',
          },
        },
        required: ['model'],
        additionalProperties: false,
      },
      outputSchema: chatCompletionOutput,
      annotations: { title: 'Chat completion', readOnlyHint: true, idempotentHint: false },
    },
    {
      name: LIST_MODELS,
      title: 'List models',
      description: 'Lists the models this key may use with chat_completion: each id with its description, context size and largest max_tokens. Free: no rate limit or usage is charged.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      outputSchema: listModelsOutput,
      annotations: { title: 'List models', readOnlyHint: true, idempotentHint: true },
    },
  ];
}
