// The public API's paths (SPEC section 4, and the Responses and Messages APIs beside it).
import { RUNS_MODEL, json, jsonOrStream, operation, pathId, query } from './operation.ts';

const chat = 'Chat';
const models = 'Models';
const responses = 'Responses';
const messages = 'Messages';
const service = 'Service';

const anthropicVersion = {
  name: 'anthropic-version', in: 'header', required: false,
  description: "Sent by Anthropic's SDKs: the answer, and its errors, then take Anthropic's shape.", schema: { type: 'string' },
};
const responseId = pathId('id', 'A stored response of this key\'s account.');

export const PUBLIC_PATHS = {
  '/v1/chat/completions': {
    post: operation({
      operationId: 'createChatCompletion', rateLimitHeaders: true, summary: 'Create a chat completion', tag: chat, access: 'key', body: 'ChatCompletionRequest',
      answers: { 200: jsonOrStream('The completion; with `stream: true`, chunk events ended by `data: [DONE]`.', 'ChatCompletion', 'ChatStreamData') },
      errors: RUNS_MODEL,
    }),
  },
  '/v1/models': {
    get: operation({
      operationId: 'listModels', summary: 'List the models this key may use', tag: models, access: 'anthropic', parameters: [anthropicVersion],
      answers: { 200: { description: 'The models.', content: { 'application/json': { schema: { anyOf: [{ $ref: '#/components/schemas/ModelList' }, { $ref: '#/components/schemas/AnthropicModelList' }] } } } } },
      errorShape: 'either',
    }),
  },
  '/v1/models/{id}': {
    get: operation({
      operationId: 'retrieveModel', summary: 'Read one model', tag: models, access: 'anthropic', parameters: [pathId('id', 'A model id.'), anthropicVersion],
      answers: { 200: { description: 'The model.', content: { 'application/json': { schema: { anyOf: [{ $ref: '#/components/schemas/Model' }, { $ref: '#/components/schemas/AnthropicModel' }] } } } } },
      errors: [404], errorShape: 'either',
    }),
  },
  '/v1/responses': {
    post: operation({
      operationId: 'createResponse', rateLimitHeaders: true, summary: 'Create a response (OpenAI Responses API)', tag: responses, access: 'key', body: 'ResponsesRequest',
      answers: { 200: jsonOrStream('The Response; with `stream: true`, named events whose name is their `type`.', 'Response', 'ResponseStreamEvent') },
      errors: RUNS_MODEL,
    }),
  },
  '/v1/responses/{id}': {
    get: operation({
      operationId: 'getResponse', summary: 'Read a stored response', tag: responses, access: 'key', parameters: [responseId],
      answers: { 200: json('The stored Response.', 'Response') }, errors: [404],
    }),
    delete: operation({
      operationId: 'deleteResponse', summary: 'Delete a stored response', tag: responses, access: 'key', parameters: [responseId],
      answers: { 200: json('It is deleted.', 'ResponseDeleted') }, errors: [404],
    }),
  },
  '/v1/responses/{id}/input_items': {
    get: operation({
      operationId: 'listResponseInputItems', summary: "A stored response's input items", tag: responses, access: 'key',
      parameters: [
        responseId,
        query('order', 'asc or desc (default).', { enum: ['asc', 'desc'] }),
        query('limit', '1 to 100 (default 20).', { type: 'integer', minimum: 1, maximum: 100 }),
        query('after', 'An item id: the page starts after it.'),
      ],
      answers: { 200: json('A page of input items.', 'ResponseInputItemList') }, errors: [404],
    }),
  },
  '/v1/messages': {
    post: operation({
      operationId: 'createMessage', rateLimitHeaders: true, summary: "Create a message (Anthropic's Messages API)", tag: messages, access: 'anthropic', body: 'MessagesRequest',
      answers: { 200: jsonOrStream('The Message; with `stream: true`, named events whose name is their `type`.', 'Message', 'MessageStreamEvent') },
      errors: RUNS_MODEL, errorShape: 'anthropic',
    }),
  },
  '/v1/messages/count_tokens': {
    post: operation({
      operationId: 'countMessageTokens', summary: "Count a Messages request's prompt tokens", tag: messages, access: 'anthropic', body: 'CountTokensRequest',
      answers: { 200: json('The count.', 'MessageTokensCount') }, errors: [404], errorShape: 'anthropic',
    }),
  },
  '/mcp': {
    post: operation({
      operationId: 'mcp', summary: 'MCP server (Streamable HTTP, stateless)', tag: service, access: 'key', body: 'JsonRpc',
      description: 'Tools: chat_completion and list_models. What the MCP transport itself refuses (Accept, protocol version, JSON-RPC) it answers as the MCP specification describes.',
      answers: {
        200: {
          description: 'The JSON-RPC answer, as JSON or as an event stream.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpc' } }, 'text/event-stream': { schema: { type: 'string' }, 'x-event-data': { $ref: '#/components/schemas/JsonRpc' } } },
        },
        202: { description: 'Accepted: the message was a notification or a response; no body.' },
        406: { description: 'Refused by the MCP transport: Accept must list application/json and text/event-stream.', content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpc' } } } },
        415: { description: 'Refused by the MCP transport: unsupported Content-Type.', content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpc' } } } },
      },
      errorShape: 'mcp',
    }),
    options: operation({
      operationId: 'mcpPreflight', summary: 'CORS preflight for /mcp', tag: service, access: 'none',
      answers: { 200: { description: 'The CORS headers for an allowed origin; none for another.' } },
    }),
  },
  '/health': {
    get: operation({
      operationId: 'health', summary: 'Liveness: the process answers', tag: service, access: 'none',
      answers: { 200: json('Alive.', 'Health') },
    }),
  },
  '/readyz': {
    get: operation({
      operationId: 'readiness', summary: 'Readiness: the instance should get traffic', tag: service, access: 'none',
      answers: { 200: json('Ready.', 'Readiness') },
      description: '503 `not_ready` while the instance is starting or draining.',
    }),
  },
  '/openapi.json': {
    get: operation({
      operationId: 'openapi', summary: 'This document', tag: service, access: 'none',
      answers: { 200: { description: 'The OpenAPI 3.1 document of the public and admin API.', content: { 'application/json': { schema: { type: 'object', required: ['openapi'] } } } } },
    }),
  },
} as const;
