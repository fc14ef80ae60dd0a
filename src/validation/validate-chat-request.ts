import { Ajv } from 'ajv';
import { ApiError } from '../errors/api-error.ts';
import { promptMessagesOf } from '../tokens/prompt-messages.ts';
import type { ChatRequest, ChatRequestBody } from './chat-request.ts';
import { ANY_CHAT_REQUEST_SCHEMA, CHAT_REQUEST_SCHEMA } from './chat-request-schema.ts';
import { checkConversation, type ConversationShape } from './conversation-rules.ts';
import type { JsonBody } from './json-body.ts';
import { mapAjvError } from './map-ajv-error.ts';
import { structuredRequest } from './structured-request.ts';

// Compiled once at module load. strict also sets strictNumbers (NaN/Infinity fail `number`);
// union types (`['number', 'null']`) must be allowed explicitly under strict. `verbose` keeps
// `parentSchema` on errors so messages can quote both bounds of a range; it costs nothing
// on valid requests. No coercion, defaults or removeAdditional: the body is never rewritten.
const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true, verbose: true });
const validatePlainBody = ajv.compile<ChatRequestBody>(CHAT_REQUEST_SCHEMA);
// Tool turns and content parts: tried only when the plain schema refuses a body, so a plain request
// costs what it did before tools existed; its errors are the ones clients see.
const validateAnyBody = ajv.compile<ChatRequestBody>(ANY_CHAT_REQUEST_SCHEMA);

const NO_STOP: readonly string[] = Object.freeze([]);

/**
 * A parsed JSON value → a validated ChatRequest, or the first problem as an ApiError (400). `source`:
 * the body it was parsed from, when the request is to be relayed as sent.
 */
export function validateChatRequest(value: unknown, source: JsonBody | null = null): ChatRequest {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ApiError('invalid_body');
  let conversation: ConversationShape | null = null;
  if (!validatePlainBody(value)) {
    if (!validateAnyBody(value)) {
      const error = validateAnyBody.errors?.[0];
      throw error === undefined ? new ApiError('invalid_body') : mapAjvError(error, value);
    }
    conversation = checkConversation(value.messages);
  }
  checkFieldCombinations(value);
  return normalise(value, conversation, source);
}

/** Rules between fields, which JSON Schema draft-07 expresses poorly. */
function checkFieldCombinations(body: ChatRequestBody): void {
  if (body.top_logprobs != null && body.logprobs !== true) {
    throw new ApiError('invalid_value', { param: 'top_logprobs', message: 'top_logprobs requires logprobs to be true.' });
  }
  // Both limits at once is refused rather than resolved: the limit we reserve tokens for must
  // be the one the upstream enforces, and upstreams differ in which field wins.
  if (body.max_tokens != null && body.max_completion_tokens != null) {
    throw new ApiError('invalid_value', { param: 'max_tokens', message: 'Set max_completion_tokens or max_tokens, not both.' });
  }
  if (body.stream_options != null && body.stream !== true) {
    throw new ApiError('invalid_value', { param: 'stream_options', message: 'stream_options is only allowed when stream is true.' });
  }
  if (body.response_format?.type === 'json_schema' && body.response_format.json_schema === undefined) {
    throw new ApiError('missing_required_parameter', {
      param: 'response_format.json_schema',
      message: 'response_format.json_schema is required when response_format.type is json_schema.',
    });
  }
}

function normalise(body: ChatRequestBody, conversation: ConversationShape | null, source: JsonBody | null): ChatRequest {
  return new ValidatedChatRequest(body, structuredRequest(body, conversation), source);
}

/**
 * The request's settings are read from the body when asked: a field each, made on every request,
 * cost more than all the reads. What takes an allocation to work out is worked out once.
 */
class ValidatedChatRequest implements ChatRequest {
  readonly body: ChatRequestBody;
  readonly messages: ChatRequest['messages'];
  readonly structured: ChatRequest['structured'];
  readonly stop: readonly string[];
  readonly source: JsonBody | null;

  constructor(body: ChatRequestBody, structured: ChatRequest['structured'], source: JsonBody | null) {
    this.body = body;
    this.source = source;
    // A plain body's messages are already text (the plain schema saw to it).
    this.messages = structured === null ? (body.messages as ChatRequest['messages']) : promptMessagesOf(body);
    this.structured = structured;
    const { stop } = body;
    this.stop = stop == null ? NO_STOP : typeof stop === 'string' ? [stop] : stop;
  }

  get model(): string {
    return this.body.model;
  }

  get stream(): boolean {
    return this.body.stream === true;
  }

  get includeUsage(): boolean {
    return this.body.stream_options?.include_usage === true;
  }

  get maxTokens(): number | null {
    return this.body.max_completion_tokens ?? this.body.max_tokens ?? null;
  }

  get maxTokensParam(): ChatRequest['maxTokensParam'] {
    return this.body.max_tokens != null ? 'max_tokens' : 'max_completion_tokens';
  }

  get n(): number {
    return this.body.n ?? 1;
  }

  get temperature(): number | null {
    return this.body.temperature ?? null;
  }

  get topP(): number | null {
    return this.body.top_p ?? null;
  }

  get seed(): number | null {
    return this.body.seed ?? null;
  }

  get logprobs(): boolean {
    return this.body.logprobs === true;
  }

  get topLogprobs(): number | null {
    return this.body.top_logprobs ?? null;
  }
}
