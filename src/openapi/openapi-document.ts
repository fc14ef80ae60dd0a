// The OpenAPI 3.1 document of the public and admin API. Request bodies are the schemas the server
// validates with, converted to JSON Schema 2020-12; answers are described in this folder.
import { readFileSync } from 'node:fs';
import {
  CHANGE_ACCOUNT_SCHEMA, CHANGE_KEY_SCHEMA, CREATE_ACCOUNT_SCHEMA, CREATE_KEY_SCHEMA, ROTATE_KEY_SCHEMA,
} from '../admin/admin-schemas.ts';
import { COUNT_TOKENS_SCHEMA, MESSAGES_REQUEST_SCHEMA } from '../protocols/messages/messages-request-schema.ts';
import { RESPONSES_REQUEST_SCHEMA } from '../protocols/responses/responses-request-schema.ts';
import { ANY_CHAT_REQUEST_SCHEMA } from '../validation/chat-request-schema.ts';
import { ADMIN_PATHS } from './admin-paths.ts';
import {
  ACCOUNT_SCHEMA, API_KEY_SCHEMA, API_KEY_WITH_SECRET_SCHEMA, AUDIT_ENTRY_SCHEMA, CACHE_PURGE_SCHEMA, USAGE_DAY_SCHEMA, listSchema,
} from './admin-view-schemas.ts';
import { CHAT_COMPLETION_CHUNK_SCHEMA, CHAT_COMPLETION_SCHEMA, CHAT_STREAM_DATA_SCHEMA } from './chat-schemas.ts';
import { ANTHROPIC_ERROR_SCHEMA, ERROR_SCHEMA } from './error-schemas.ts';
import { MESSAGE_SCHEMA, MESSAGE_STREAM_EVENT_SCHEMA, TOKEN_COUNT_SCHEMA } from './messages-schemas.ts';
import { ANTHROPIC_MODEL_LIST_SCHEMA, ANTHROPIC_MODEL_SCHEMA, MODEL_LIST_SCHEMA, MODEL_SCHEMA } from './model-schemas.ts';
import { PUBLIC_PATHS } from './public-paths.ts';
import { RESPONSE_DELETED_SCHEMA, RESPONSE_INPUT_ITEMS_SCHEMA, RESPONSE_SCHEMA, RESPONSE_STREAM_EVENT_SCHEMA } from './responses-schemas.ts';
import { HEALTH_SCHEMA, JSON_RPC_SCHEMA, READINESS_SCHEMA } from './service-schemas.ts';
import { toJsonSchema2020 } from './json-schema-2020.ts';

/** The request bodies the server validates with (draft-07, for ajv). */
const REQUEST_SCHEMAS = {
  ChatCompletionRequest: ANY_CHAT_REQUEST_SCHEMA,
  ResponsesRequest: RESPONSES_REQUEST_SCHEMA,
  MessagesRequest: MESSAGES_REQUEST_SCHEMA,
  CountTokensRequest: COUNT_TOKENS_SCHEMA,
  CreateAccountRequest: CREATE_ACCOUNT_SCHEMA,
  ChangeAccountRequest: CHANGE_ACCOUNT_SCHEMA,
  CreateKeyRequest: CREATE_KEY_SCHEMA,
  ChangeKeyRequest: CHANGE_KEY_SCHEMA,
  RotateKeyRequest: ROTATE_KEY_SCHEMA,
};

const ANSWER_SCHEMAS = {
  Error: ERROR_SCHEMA,
  AnthropicError: ANTHROPIC_ERROR_SCHEMA,
  ChatCompletion: CHAT_COMPLETION_SCHEMA,
  ChatCompletionChunk: CHAT_COMPLETION_CHUNK_SCHEMA,
  ChatStreamData: CHAT_STREAM_DATA_SCHEMA,
  Model: MODEL_SCHEMA,
  ModelList: MODEL_LIST_SCHEMA,
  AnthropicModel: ANTHROPIC_MODEL_SCHEMA,
  AnthropicModelList: ANTHROPIC_MODEL_LIST_SCHEMA,
  Response: RESPONSE_SCHEMA,
  ResponseDeleted: RESPONSE_DELETED_SCHEMA,
  ResponseInputItemList: RESPONSE_INPUT_ITEMS_SCHEMA,
  ResponseStreamEvent: RESPONSE_STREAM_EVENT_SCHEMA,
  Message: MESSAGE_SCHEMA,
  MessageTokensCount: TOKEN_COUNT_SCHEMA,
  MessageStreamEvent: MESSAGE_STREAM_EVENT_SCHEMA,
  Health: HEALTH_SCHEMA,
  Readiness: READINESS_SCHEMA,
  JsonRpc: JSON_RPC_SCHEMA,
  Account: ACCOUNT_SCHEMA,
  AccountList: listSchema('Account'),
  ApiKey: API_KEY_SCHEMA,
  ApiKeyWithSecret: API_KEY_WITH_SECRET_SCHEMA,
  ApiKeyList: listSchema('ApiKey'),
  UsageDay: USAGE_DAY_SCHEMA,
  UsageDayList: listSchema('UsageDay'),
  CachePurge: CACHE_PURGE_SCHEMA,
  AuditEntry: AUDIT_ENTRY_SCHEMA,
  AuditEntryList: listSchema('AuditEntry'),
};

const SECURITY_SCHEMES = {
  apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'sk_…', description: 'An API key: `Authorization: Bearer sk_…`. Admin keys are refused here.' },
  adminKey: { type: 'http', scheme: 'bearer', bearerFormat: 'sk_…', description: 'An admin key (one created with `admin: true`); any other key is a 403 `admin_required`.' },
  anthropicApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: "The same API key in the header Anthropic's SDKs send." },
};

const integerHeader = (description: string) => ({ description, required: true, schema: { type: 'integer', minimum: 0 } });
const durationHeader = (description: string) => ({ description, required: true, schema: { type: 'string', pattern: '^([0-9]+h)?([0-9]+m)?[0-9]+(ms|s)$' } });

const HEADERS = {
  RequestId: { description: "The request's id, as the request log and traces name it (also `request-id` for Anthropic's clients).", required: true, schema: { type: 'string', minLength: 1 } },
  'RateLimit-limit-requests': integerHeader("The key's requests per minute."),
  'RateLimit-remaining-requests': integerHeader('Requests left in the current window.'),
  'RateLimit-reset-requests': durationHeader('Until the request window has room again, as `1s` or `250ms`.'),
  'RateLimit-limit-tokens': integerHeader("The key's tokens per minute."),
  'RateLimit-remaining-tokens': integerHeader('Tokens left in the current window.'),
  'RateLimit-reset-tokens': durationHeader('Until the token window has room again.'),
};

function version(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

export function openApiDocument(): Record<string, unknown> {
  const requestSchemas = Object.fromEntries(Object.entries(REQUEST_SCHEMAS).map(([name, schema]) => [name, toJsonSchema2020(schema)]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Munja',
      version: version(),
      description: 'An OpenAI-compatible chat-completion service: the public API, the Responses and Messages APIs beside it, and the admin API.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    security: [{ apiKey: [] }],
    paths: { ...PUBLIC_PATHS, ...ADMIN_PATHS },
    components: { schemas: { ...requestSchemas, ...ANSWER_SCHEMAS }, headers: HEADERS, securitySchemes: SECURITY_SCHEMES },
  };
}
