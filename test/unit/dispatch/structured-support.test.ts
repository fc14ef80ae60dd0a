import { describe, expect, it } from 'vitest';
import { checkEngineOutput } from '../../../src/dispatch/structured-support.ts';
import type { EngineChoice } from '../../../src/engine/engine-types.ts';
import { ApiError } from '../../../src/errors/api-error.ts';
import { validateChatRequest } from '../../../src/validation/validate-chat-request.ts';

const request = validateChatRequest({
  model: 'default',
  messages: [{ role: 'user', content: 'x' }],
  tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } } }],
  response_format: { type: 'json_schema', json_schema: { name: 's', schema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } } },
});
const structured = request.structured!;

function call(args: string, finishReason: EngineChoice['finishReason'] = 'tool_calls'): EngineChoice {
  return { pieces: [], finishReason, completionTokens: 1, toolCalls: [{ id: 'call_1', name: 'f', argumentPieces: [args] }] };
}
function content(text: string): EngineChoice {
  return { pieces: [text], finishReason: 'stop', completionTokens: 1 };
}
const check = (choices: EngineChoice[], stops: string[] = []) => () => checkEngineOutput({ promptTokens: 1, choices }, structured, stops);

describe('checkEngineOutput', () => {
  it('lets valid calls and content through', () => {
    expect(check([call('{"n":1}'), content('{"a":"x"}')])).not.toThrow();
  });

  it('turns arguments or content that do not validate into engine_error', () => {
    for (const choices of [[call('{"n":"one"}')], [call('{"n":')], [content('{"b":1}')]]) {
      expect(check(choices)).toThrow(ApiError);
      expect(check(choices)).toThrow(expect.objectContaining({ code: 'engine_error' }));
    }
  });

  it('lets through what max_tokens or a stop sequence cut', () => {
    expect(check([call('{"n":', 'length')])).not.toThrow();
    expect(check([content('{"a":"x')], ['"}'])).not.toThrow();
  });
});
