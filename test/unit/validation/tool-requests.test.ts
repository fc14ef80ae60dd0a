// Tool turns, content parts, tools and response formats: what validation accepts and how it refuses.
import { describe, expect, it } from 'vitest';
import { validateChatRequest } from '../../../src/validation/validate-chat-request.ts';
import type { ErrorCode } from '../../../src/errors/catalogue.ts';
import { expectApiError } from './expect-api-error.ts';

const TOOL = { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } } };
const CALL = { id: 'call_1', type: 'function', function: { name: 'get_time', arguments: '{"zone":"UTC"}' } };
const ASK = { role: 'user', content: 'What time is it?' };

function body(messages: unknown[], fields: Record<string, unknown> = {}) {
  return { model: 'default', messages, ...fields };
}

function bad(value: unknown, code: ErrorCode, param: string): void {
  expectApiError(() => validateChatRequest(value), { status: 400, code, param });
}

describe('the follow-up turn', () => {
  it('accepts an assistant turn with tool_calls (content null or absent) and the tool results', () => {
    for (const assistant of [{ role: 'assistant', content: null, tool_calls: [CALL] }, { role: 'assistant', tool_calls: [CALL] }, { role: 'assistant', content: 'Let me see.', tool_calls: [CALL] }]) {
      const request = validateChatRequest(body([ASK, assistant, { role: 'tool', tool_call_id: 'call_1', content: '12:00' }], { tools: [TOOL] }));
      expect(request.structured).toMatchObject({ toolHistoryAt: 1, endsWithToolResult: true, contentPartsAt: -1, toolChoice: 'auto' });
      // Counted as text: the call and its arguments are part of the prompt.
      expect(request.messages[2]!.content).toContain('get_time({"zone":"UTC"})');
    }
  });

  it('refuses a tool_call_id that answers no earlier call, or one already answered', () => {
    const assistant = { role: 'assistant', content: null, tool_calls: [CALL] };
    bad(body([ASK, assistant, { role: 'tool', tool_call_id: 'call_9', content: 'x' }]), 'invalid_value', 'messages[2].tool_call_id');
    bad(body([ASK, { role: 'tool', tool_call_id: 'call_1', content: 'x' }]), 'invalid_value', 'messages[1].tool_call_id');
    bad(body([ASK, assistant, { role: 'tool', tool_call_id: 'call_1', content: 'x' }, { role: 'tool', tool_call_id: 'call_1', content: 'x' }]), 'invalid_value', 'messages[3].tool_call_id');
  });

  it('requires every call to be answered before the conversation goes on', () => {
    const two = { role: 'assistant', content: null, tool_calls: [CALL, { ...CALL, id: 'call_2' }] };
    bad(body([ASK, two, { role: 'tool', tool_call_id: 'call_1', content: 'x' }, ASK]), 'invalid_value', 'messages[1].tool_calls');
    bad(body([ASK, two, { role: 'tool', tool_call_id: 'call_2', content: 'x' }]), 'invalid_value', 'messages[1].tool_calls');
    bad(body([ASK, { role: 'assistant', content: null, tool_calls: [CALL, CALL] }]), 'invalid_value', 'messages[1].tool_calls[1].id');
  });

  it('keeps content a string everywhere else', () => {
    bad(body([{ role: 'user', content: null }]), 'invalid_content', 'messages[0].content');
    bad(body([{ role: 'assistant', content: null }]), 'invalid_content', 'messages[0].content');
    bad(body([{ role: 'assistant' }]), 'missing_required_parameter', 'messages[0].content');
    bad(body([ASK, { role: 'assistant', content: null, tool_calls: [CALL] }, { role: 'tool', tool_call_id: 'call_1', content: null }]), 'invalid_content', 'messages[2].content');
    bad(body([ASK, { role: 'assistant', content: null, tool_calls: [CALL] }, { role: 'tool', content: 'x' }]), 'missing_required_parameter', 'messages[2].tool_call_id');
    bad(body([{ role: 'user', content: 'x', tool_calls: [CALL] }]), 'unknown_parameter', 'messages[0].tool_calls');
    bad(body([ASK, { role: 'assistant', content: null, tool_calls: [{ ...CALL, function: { name: 'get_time' } }] }]), 'missing_required_parameter', 'messages[1].tool_calls[0].function.arguments');
  });

  it('notes content parts for the model check, and checks their shape', () => {
    const parts = [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }];
    const request = validateChatRequest(body([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: parts }]));
    expect(request.structured?.contentPartsAt).toBe(1);
    expect(request.messages[1]!.content).toBe('What is this?');
    bad(body([{ role: 'user', content: [{ type: 'image_url' }] }]), 'missing_required_parameter', 'messages[0].content[0].image_url');
    bad(body([{ role: 'system', content: parts }]), 'invalid_content', 'messages[0].content[1]');
    bad(body([{ role: 'user', content: [{ type: 'audio', text: 'x' }] }]), 'invalid_value', 'messages[0].content[0].type');
  });
});

describe('tools and response formats', () => {
  it('leaves a plain request without a structured part (it costs nothing extra)', () => {
    const plain = { model: 'default', messages: [ASK] };
    const request = validateChatRequest(plain);
    expect(request.structured).toBeNull();
    expect(request.messages).toBe(plain.messages);
  });

  it('checks tool_choice and parallel_tool_calls against tools', () => {
    bad(body([ASK], { tool_choice: 'auto' }), 'invalid_value', 'tool_choice');
    bad(body([ASK], { parallel_tool_calls: true }), 'invalid_value', 'parallel_tool_calls');
    bad(body([ASK], { tools: [TOOL], tool_choice: { type: 'function', function: { name: 'other' } } }), 'invalid_value', 'tool_choice.function.name');
    bad(body([ASK], { tools: [TOOL, TOOL] }), 'invalid_value', 'tools[1].function.name');
    expect(validateChatRequest(body([ASK], { tools: [TOOL], parallel_tool_calls: false })).structured).toMatchObject({ toolChoice: 'auto', parallelToolCalls: false });
  });
});
