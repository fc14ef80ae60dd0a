// A Messages body → the chat request it runs as, and the refusals in Anthropic's notation.
import { describe, expect, it } from 'vitest';
import type { ApiError } from '../../../../src/errors/api-error.ts';
import { type ModelLimits, toChatBody } from '../../../../src/protocols/messages/to-chat-body.ts';
import { validateMessagesRequest } from '../../../../src/protocols/messages/validate-messages-request.ts';
import { validateChatRequest } from '../../../../src/validation/validate-chat-request.ts';

const TEXT_MODEL: ModelLimits = { maxOutputTokens: 8192, takesImages: false, takesTopK: false };
const VISION_MODEL: ModelLimits = { maxOutputTokens: 8192, takesImages: true, takesTopK: false };
const SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const TOOLS = [{ name: 'get_weather', description: 'The weather.', input_schema: SCHEMA }, { name: 'get_time', input_schema: { type: 'object' } }];

function chat(body: Record<string, unknown>, limits: ModelLimits | null = TEXT_MODEL): Record<string, any> {
  const translated = toChatBody(validateMessagesRequest({ model: 'fast', max_tokens: 100, ...body }), limits);
  validateChatRequest(translated); // every translation is a valid chat request
  return translated;
}

function refusal(body: Record<string, unknown>, limits: ModelLimits | null = TEXT_MODEL): { code: string; param: string | null; message: string } {
  try {
    chat(body, limits);
  } catch (error) {
    const { code, param, message } = error as ApiError;
    expect(message.startsWith(`${param}: `)).toBe(true);
    return { code, param, message };
  }
  throw new Error('not refused');
}

describe('toChatBody', () => {
  it('puts system (a string or text blocks) first, joins text blocks, and keeps a system message in messages', () => {
    const body = chat({
      system: [{ type: 'text', text: 'One.' }, { type: 'text', text: 'Two.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hi' }, { type: 'text', text: 'there' }] },
        { role: 'system', content: [{ type: 'text', text: 'Mind the time.', cache_control: { type: 'ephemeral' } }] },
        { role: 'assistant', content: 'Hello.' },
        { role: 'user', content: 'Bye' },
      ],
    });
    expect(body.messages).toEqual([
      { role: 'system', content: 'One.\nTwo.' },
      { role: 'user', content: 'Hi\nthere' },
      { role: 'system', content: 'Mind the time.' },
      { role: 'assistant', content: 'Hello.' },
      { role: 'user', content: 'Bye' },
    ]);
    expect(chat({ system: 'Be brief.', messages: [{ role: 'user', content: 'x' }] }).messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
  });

  it('turns tool_use into tool_calls and tool_result into tool messages (results first), dropping thinking', () => {
    const body = chat({
      tools: TOOLS,
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: [
          { type: 'thinking', thinking: 'hm', signature: 'sig' },
          { type: 'redacted_thinking', data: 'xx' },
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Zagreb' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: {} },
        ] },
        { role: 'user', content: [
          { type: 'text', text: 'Here you go.' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: '12:00' }] },
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny', is_error: false },
        ] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_3', name: 'get_time', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_3', content: 'no clock', is_error: true }] },
      ],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: 'Looking.', tool_calls: [
        { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Zagreb"}' } },
        { id: 'toolu_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
      ] },
      { role: 'tool', tool_call_id: 'toolu_2', content: '12:00' },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'sunny' },
      { role: 'user', content: 'Here you go.' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_3', type: 'function', function: { name: 'get_time', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'toolu_3', content: 'Error: no clock' },
    ]);
  });

  it('offers custom tools as functions, leaving deferred ones out until a tool_reference loads them', () => {
    const deferred = { name: 'later', input_schema: { type: 'object' }, defer_loading: true };
    expect(chat({ tools: [...TOOLS, deferred], messages: [{ role: 'user', content: 'x' }] }).tools).toEqual([
      { type: 'function', function: { name: 'get_weather', description: 'The weather.', parameters: SCHEMA } },
      { type: 'function', function: { name: 'get_time', parameters: { type: 'object' } } },
    ]);
    const loaded = chat({
      tools: [...TOOLS, deferred],
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'get_time', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'tool_reference', tool_name: 'later' }] }] },
      ],
    });
    expect(loaded.tools.map((tool: any) => tool.function.name)).toEqual(['get_weather', 'get_time', 'later']);
    expect(chat({ tools: [deferred], tool_choice: { type: 'tool', name: 'later' }, messages: [{ role: 'user', content: 'x' }] }).tools).toHaveLength(1);
  });

  it('maps tool_choice and disable_parallel_tool_use', () => {
    const choice = (toolChoice: Record<string, unknown>) => {
      const { tool_choice, parallel_tool_calls } = chat({ tools: TOOLS, tool_choice: toolChoice, messages: [{ role: 'user', content: 'x' }] });
      return { tool_choice, parallel_tool_calls };
    };
    expect(choice({ type: 'auto' })).toEqual({ tool_choice: 'auto', parallel_tool_calls: undefined });
    expect(choice({ type: 'any', disable_parallel_tool_use: true })).toEqual({ tool_choice: 'required', parallel_tool_calls: false });
    expect(choice({ type: 'tool', name: 'get_time' })).toEqual({ tool_choice: { type: 'function', function: { name: 'get_time' } }, parallel_tool_calls: undefined });
    expect(choice({ type: 'none' })).toEqual({ tool_choice: 'none', parallel_tool_calls: undefined });
  });

  it('clamps max_tokens to the model, asks a stream for its usage, and passes the sampling fields and the output format', () => {
    const body = chat({
      max_tokens: 32_000, stream: true, temperature: 0.5, top_p: 0.9, stop_sequences: ['END'],
      output_config: { effort: 'high', format: { type: 'json_schema', schema: SCHEMA } },
      thinking: { type: 'adaptive', display: 'omitted' }, context_management: { edits: [] }, metadata: { user_id: 'u' }, service_tier: 'auto',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(body).toEqual({
      model: 'fast', messages: [{ role: 'user', content: 'x' }], max_tokens: 8192, stop: ['END'], temperature: 0.5, top_p: 0.9,
      stream: true, stream_options: { include_usage: true }, response_format: { type: 'json_schema', json_schema: { name: 'output', schema: SCHEMA } },
    });
    expect(chat({ messages: [{ role: 'user', content: 'x' }] }, null).max_tokens).toBe(100);
  });

  it('passes images to a model that takes them, and refuses them, and documents, naming the block', () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } };
    const messages = [{ role: 'user', content: [{ type: 'text', text: 'What is it?' }, image] }];
    expect(chat({ messages }, VISION_MODEL).messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'What is it?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }]);
    expect(refusal({ messages })).toMatchObject({ code: 'invalid_content', param: 'messages.0.content.1' });
    expect(refusal({ messages: [{ role: 'user', content: [{ type: 'document', source: {} }] }] }, VISION_MODEL)).toMatchObject({ code: 'invalid_content', param: 'messages.0.content.0' });
  });

  it('refuses what breaks the conversation, in Anthropic\'s notation', () => {
    const call = { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'get_time', input: {} }] };
    expect(refusal({ messages: [{ role: 'user', content: 'x' }, call, { role: 'user', content: 'no result' }] })).toMatchObject({ code: 'invalid_value', param: 'messages.1' });
    expect(refusal({ messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'nope' }] }] })).toMatchObject({ param: 'messages.0.content.0.tool_use_id' });
    expect(refusal({ messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: 'Sure' }] })).toMatchObject({ param: 'messages.1' });
    expect(refusal({ messages: [{ role: 'user', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] }] })).toMatchObject({ param: 'messages.0.content.0' });
    expect(refusal({ messages: [{ role: 'system', content: [{ type: 'image', source: { type: 'url', url: 'https://x' } }] }, { role: 'user', content: 'x' }] })).toMatchObject({ param: 'messages.0.content.0' });
    expect(refusal({ top_k: 5, messages: [{ role: 'user', content: 'x' }] })).toMatchObject({ code: 'unsupported_parameter', param: 'top_k' });
    // A model whose every upstream speaks Messages gets the request as sent, top_k in it.
    expect(chat({ top_k: 5, messages: [{ role: 'user', content: 'x' }] }, { ...TEXT_MODEL, takesTopK: true })).not.toHaveProperty('top_k');
    expect(chat({ top_k: null, messages: [{ role: 'user', content: 'x' }] })).not.toHaveProperty('top_k');
    expect(refusal({ tools: [TOOLS[0], TOOLS[0]], messages: [{ role: 'user', content: 'x' }] })).toMatchObject({ param: 'tools.1.name' });
    expect(refusal({ tools: TOOLS, tool_choice: { type: 'tool', name: 'nope' }, messages: [{ role: 'user', content: 'x' }] })).toMatchObject({ param: 'tool_choice.name' });
    expect(refusal({ tool_choice: { type: 'any' }, messages: [{ role: 'user', content: 'x' }] })).toMatchObject({ param: 'tool_choice.type' });
  });

  it('refuses a body outside the schema with the path of the field', () => {
    expect(refusal({ messages: [{ role: 'user', content: [{ type: 'text' }] }] })).toMatchObject({ code: 'missing_required_parameter', param: 'messages.0.content.0.text' });
    expect(refusal({ messages: [{ role: 'user', content: [{ type: 'audio' }] }] })).toMatchObject({ code: 'invalid_value', param: 'messages.0.content.0.type' });
    expect(refusal({ tool_choice: { type: 'required' }, messages: [{ role: 'user', content: 'x' }] })).toMatchObject({ code: 'invalid_value', param: 'tool_choice.type' });
    expect(refusal({ messages: [{ role: 'user', content: 5 }] })).toMatchObject({ code: 'invalid_content', param: 'messages.0.content' });
    expect(refusal({ messages: [{ role: 'tool', content: 'x' }] })).toMatchObject({ code: 'invalid_role', param: 'messages.0.role' });
    expect(refusal({ messages: [] })).toMatchObject({ code: 'empty_messages', param: 'messages' });
    expect(refusal({ temperature: 1.5, messages: [{ role: 'user', content: 'x' }] })).toMatchObject({ code: 'invalid_value', param: 'temperature' });
    expect(refusal({ n: 2, messages: [{ role: 'user', content: 'x' }] })).toMatchObject({ code: 'unknown_parameter', param: 'n' });
    expect(refusal({ tools: [{ type: 'web_search_20250305', name: 'web_search' }], messages: [{ role: 'user', content: 'x' }] })).toMatchObject({ code: 'unsupported_parameter', param: 'tools.0.type' });
    expect(() => validateMessagesRequest({ model: 'fast', messages: [{ role: 'user', content: 'x' }] })).toThrow(expect.objectContaining({ code: 'missing_required_parameter', param: 'max_tokens' }));
    expect(validateMessagesRequest({ model: 'fast', messages: [{ role: 'user', content: 'x' }] }, true).model).toBe('fast');
  });
});
