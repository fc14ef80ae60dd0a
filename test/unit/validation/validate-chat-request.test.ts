import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../../src/errors/catalogue.ts';
import type { ChatRequestBody } from '../../../src/validation/chat-request.ts';
import { CHAT_REQUEST_SCHEMA } from '../../../src/validation/chat-request-schema.ts';
import { parseJsonBody } from '../../../src/validation/parse-json-body.ts';
import { validateChatRequest } from '../../../src/validation/validate-chat-request.ts';
import { expectApiError } from './expect-api-error.ts';

// Compile-time check: the schema and the ChatRequestBody type list the same fields.
type SchemaFields = keyof typeof CHAT_REQUEST_SCHEMA.properties;
type SameKeys<A, B> = [Exclude<A, B>, Exclude<B, A>] extends [never, never] ? true : never;
const fieldsMatch: SameKeys<SchemaFields, keyof ChatRequestBody> = true;

const MINIMAL = { model: 'default', messages: [{ role: 'user', content: 'Hello' }] };
const withFields = (fields: Record<string, unknown>): Record<string, unknown> => ({ ...MINIMAL, ...fields });
const bad = (value: unknown, code: ErrorCode, param: string | null) =>
  expectApiError(() => validateChatRequest(value), { status: 400, code, param });

describe('validateChatRequest: body shape (HR-05)', () => {
  it('has a schema and a ChatRequestBody type that list the same fields', () => {
    expect(fieldsMatch).toBe(true);
  });

  it.each([null, [], 'x', 42, true])('rejects the top-level value %j as invalid_body', (value) => {
    bad(value, 'invalid_body', null);
  });

  it.each(['null', '[]', '"x"', '42'])('rejects the raw body %s as a 400 end to end', (text) => {
    expectApiError(() => validateChatRequest(parseJsonBody(new TextEncoder().encode(text))), { status: 400, code: 'invalid_body', param: null });
  });

  it('rejects an empty raw body as invalid_json', () => {
    expectApiError(() => validateChatRequest(parseJsonBody(new Uint8Array(0))), { status: 400, code: 'invalid_json', param: null });
  });
});

describe('validateChatRequest: required fields and messages', () => {
  it.each([
    [{ messages: MINIMAL.messages }, 'model'],
    [{ model: 'default' }, 'messages'],
    [withFields({ messages: [{ content: 'x' }] }), 'messages[0].role'],
    [withFields({ messages: [{ role: 'user' }] }), 'messages[0].content'],
  ])('%j → missing_required_parameter', (value, param) => {
    bad(value, 'missing_required_parameter', param);
  });

  it('rejects an empty model and a model of the wrong type', () => {
    bad(withFields({ model: '' }), 'invalid_value', 'model');
    bad(withFields({ model: 7 }), 'invalid_type', 'model');
  });

  it('rejects empty messages as empty_messages and too many as invalid_value', () => {
    bad(withFields({ messages: [] }), 'empty_messages', 'messages');
    bad(withFields({ messages: Array.from({ length: 10_001 }, () => MINIMAL.messages[0]) }), 'invalid_value', 'messages');
  });

  it('rejects messages that are not an array, or an item that is not an object, as invalid_type', () => {
    bad(withFields({ messages: 'Hello' }), 'invalid_type', 'messages');
    bad(withFields({ messages: [MINIMAL.messages[0], 'Hello'] }), 'invalid_type', 'messages[1]');
  });

  it.each(['robot', 'function', 'USER', 42, null])('rejects role %j as invalid_role', (role) => {
    bad(withFields({ messages: [{ role, content: 'x' }] }), 'invalid_role', 'messages[0].role');
  });

  it.each([42, null, { text: 'hi' }, []])('rejects content %j as invalid_content', (content) => {
    bad(withFields({ messages: [MINIMAL.messages[0], { role: 'user', content }] }), 'invalid_content', 'messages[1].content');
  });

  it('checks message names and refuses unknown message fields', () => {
    bad(withFields({ messages: [{ role: 'user', content: 'x', name: 'n'.repeat(65) }] }), 'invalid_value', 'messages[0].name');
    bad(withFields({ messages: [{ role: 'assistant', content: 'x', tool_calls: [] }] }), 'invalid_value', 'messages[0].tool_calls');
    bad(withFields({ messages: [{ role: 'user', content: 'x', tool_call_id: 'call_1' }] }), 'unknown_parameter', 'messages[0].tool_call_id');
    bad(withFields({ messages: [{ role: 'assistant', content: 'x', refusal: 5 }] }), 'invalid_type', 'messages[0].refusal');
    // An earlier reply sent back with its refusal, as OpenAI accepts it.
    expect(validateChatRequest(withFields({ messages: [{ role: 'assistant', content: 'x', refusal: 'no' }] }))).toBeTruthy();
    expect(validateChatRequest(withFields({ messages: [{ role: 'assistant', content: 'x', refusal: null, name: 'bot' }] }))).toBeTruthy();
  });
});

describe('validateChatRequest: numeric ranges (HR-07)', () => {
  it.each([
    ['temperature', -0.1, 'invalid_value'],
    ['temperature', 2.1, 'invalid_value'],
    ['temperature', Infinity, 'invalid_value'],
    ['temperature', '1', 'invalid_type'],
    ['top_p', 1.01, 'invalid_value'],
    ['presence_penalty', -2.5, 'invalid_value'],
    ['frequency_penalty', 2.5, 'invalid_value'],
    ['max_tokens', -1, 'invalid_value'],
    ['max_tokens', 0, 'invalid_value'],
    ['max_tokens', 1.5, 'invalid_type'],
    ['max_tokens', 2 ** 64, 'invalid_value'],
    ['max_completion_tokens', 2 ** 31, 'invalid_value'],
    ['n', 0, 'invalid_value'],
    ['n', 129, 'invalid_value'],
    ['n', 1000, 'invalid_value'],
    ['seed', 1.5, 'invalid_type'],
    ['seed', 2 ** 53, 'invalid_value'],
    ['top_logprobs', 21, 'invalid_value'],
  ] as const)('%s = %j → %s', (field, value, code) => {
    bad(withFields({ [field]: value }), code, field);
  });

  it('rejects 1e400 from the raw body with param temperature', () => {
    const text = JSON.stringify(MINIMAL).replace('{', '{"temperature":1e400,');
    expectApiError(() => validateChatRequest(parseJsonBody(new TextEncoder().encode(text))), { status: 400, code: 'invalid_value', param: 'temperature' });
  });

  it('accepts the bounds', () => {
    for (const fields of [{ temperature: 0, top_p: 0 }, { temperature: 2, top_p: 1, n: 128, max_tokens: 2 ** 31 - 1 }, { seed: -(2 ** 53 - 1), presence_penalty: -2, frequency_penalty: 2 }]) {
      expect(validateChatRequest(withFields(fields))).toBeTruthy();
    }
  });
});

describe('validateChatRequest: other fields (HR-12)', () => {
  it.each([
    [{ stop: ['a', 'b', 'c', 'd', 'e'] }, 'invalid_value', 'stop'],
    [{ stop: [] }, 'invalid_value', 'stop'],
    [{ stop: '' }, 'invalid_value', 'stop'],
    [{ stop: ['a', ''] }, 'invalid_value', 'stop[1]'],
    [{ stop: ['a', 1] }, 'invalid_type', 'stop[1]'],
    [{ stop: 5 }, 'invalid_type', 'stop'],
    [{ stream: 'yes' }, 'invalid_type', 'stream'],
    [{ stream: true, stream_options: { foo: 1 } }, 'unknown_parameter', 'stream_options.foo'],
    [{ stream: true, stream_options: { include_usage: 'yes' } }, 'invalid_type', 'stream_options.include_usage'],
    [{ stream_options: { include_usage: true } }, 'invalid_value', 'stream_options'],
    [{ best_of: 2 }, 'unknown_parameter', 'best_of'],
    [{ functions: [] }, 'unknown_parameter', 'functions'],
    [{ user: 'u'.repeat(257) }, 'invalid_value', 'user'],
    [{ logit_bias: { abc: 1 } }, 'invalid_value', 'logit_bias'],
    [{ logit_bias: { '50256': -101 } }, 'invalid_value', 'logit_bias.50256'],
    [{ top_logprobs: 2 }, 'invalid_value', 'top_logprobs'],
    [{ logprobs: false, top_logprobs: 2 }, 'invalid_value', 'top_logprobs'],
    [{ max_tokens: 10, max_completion_tokens: 10 }, 'invalid_value', 'max_tokens'],
    [{ response_format: { type: 'xml' } }, 'invalid_value', 'response_format.type'],
    [{ response_format: { type: 'json_schema' } }, 'missing_required_parameter', 'response_format.json_schema'],
    [{ tools: Array.from({ length: 129 }, () => ({ type: 'function', function: { name: 'f' } })) }, 'invalid_value', 'tools'],
    [{ tools: [{ type: 'function', function: { name: 'bad name' } }] }, 'invalid_value', 'tools[0].function.name'],
    [{ tool_choice: 'sometimes' }, 'invalid_value', 'tool_choice'],
    [{ tool_choice: { type: 'function' } }, 'missing_required_parameter', 'tool_choice.function'],
    [{ metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, 'invalid_value', 'metadata'],
    [{ metadata: { k: 1 } }, 'invalid_type', 'metadata.k'],
    [{ service_tier: 'gold' }, 'invalid_value', 'service_tier'],
    [{ reasoning_effort: 'extreme' }, 'invalid_value', 'reasoning_effort'],
    [{ modalities: ['text', 'text'] }, 'invalid_value', 'modalities'],
    [{ verbosity: 'loud' }, 'invalid_value', 'verbosity'],
    [{ prediction: { type: 'content' } }, 'missing_required_parameter', 'prediction.content'],
    [{ safety_identifier: 's'.repeat(65) }, 'invalid_value', 'safety_identifier'],
    [{ parallel_tool_calls: null }, 'invalid_type', 'parallel_tool_calls'],
  ] as const)('%j → %s at %s', (fields, code, param) => {
    bad(withFields(fields), code, param);
  });

  it('cuts a very long unknown field name short in param', () => {
    const error = bad(withFields({ ['x'.repeat(10_000)]: 1 }), 'unknown_parameter', `${'x'.repeat(64)}…`);
    expect(error.message).not.toContain('xxxx');
  });

  it('accepts null for every field OpenAI marks nullable', () => {
    const nullable = ['temperature', 'top_p', 'presence_penalty', 'frequency_penalty', 'max_tokens', 'max_completion_tokens', 'n', 'stop', 'seed', 'stream', 'stream_options', 'logit_bias', 'logprobs', 'top_logprobs', 'metadata', 'store', 'service_tier', 'reasoning_effort', 'safety_identifier', 'prompt_cache_key', 'modalities', 'verbosity', 'prediction'];
    const request = validateChatRequest(withFields(Object.fromEntries(nullable.map((field) => [field, null]))));
    expect(request).toMatchObject({ stream: false, includeUsage: false, maxTokens: null, n: 1, stop: [], temperature: null, topP: null, seed: null, logprobs: false, topLogprobs: null });
  });
});
