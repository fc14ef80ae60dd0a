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
    finish_reason: { type: 'string', description: '"stop" when the reply ended naturally, "length" when max_tokens cut it short.' },
    usage: usageSchema,
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

const messageSchema = {
  type: 'object',
  properties: {
    role: { type: 'string', enum: ['system', 'developer', 'user', 'assistant'] },
    content: { type: 'string' },
  },
  required: ['role', 'content'],
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
        "Each call counts against this key's rate limits and token usage. Call list_models to see the models and their limits.",
      inputSchema: {
        type: 'object',
        properties: {
          model: { type: 'string', ...(modelIds.length > 0 ? { enum: [...modelIds] } : {}), description: 'The model id. list_models describes each one.' },
          prompt: { type: 'string', description: 'A single user message. Give this or `messages`, not both.' },
          messages: { type: 'array', minItems: 1, items: messageSchema, description: 'The conversation so far, oldest first. Give this or `prompt`, not both.' },
          temperature: { type: 'number', minimum: 0, maximum: 2, description: 'Sampling temperature, 0–2: lower is more deterministic. Default 1.' },
          max_tokens: { type: 'integer', minimum: 1, description: "Upper bound on the reply's length in tokens; at most the model's max_output_tokens." },
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
