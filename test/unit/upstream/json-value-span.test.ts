import { describe, expect, it } from 'vitest';
import { valueSpan } from '../../../src/upstream/json-value-span.ts';
import { nativeReply } from '../../../src/upstream/native-reply.ts';

function at(text: string, path: string[], from = 0): string | null {
  const span = valueSpan(text, path, from);
  return span === null ? null : text.slice(span.start, span.end);
}

describe('valueSpan', () => {
  it('finds a value by its key path, not a nested key of the same name before it', () => {
    const text = '{"metadata":{"model":"fast"},"tools":[{"model":"x"}],"note":"\\"model\\":1","model" : "up/model","response":{"model":"r"}}';
    expect(at(text, ['model'])).toBe('"up/model"');
    expect(at(text, ['response', 'model'])).toBe('"r"');
    expect(at(text, ['metadata', 'model'])).toBe('"fast"');
  });

  it('spans any value: a number, an object with strings that hold braces, an array', () => {
    const text = '{ "a" :\t12.5e3 , "usage": {"x": "}{\\\\", "y": [1, {"z": "]"}]}, "list": [ "]", {} ] }';
    expect(at(text, ['a'])).toBe('12.5e3');
    expect(at(text, ['usage'])).toBe('{"x": "}{\\\\", "y": [1, {"z": "]"}]}');
    expect(at(text, ['list'])).toBe('[ "]", {} ]');
  });

  it('is null for a path that is not there, or that leads through something not an object', () => {
    expect(at('{"response":{"id":"r"},"model":"m"}', ['response', 'model'])).toBeNull();
    expect(at('{"response":null,"other":{"model":"m"}}', ['response', 'model'])).toBeNull();
    expect(at('{"\\u006dodel":"m"}', ['model'])).toBeNull();
  });

  it('starts at the object after `from`: an event\'s data', () => {
    const event = 'event: response.created\ndata: {"response":{"model":"m"}}\n\n';
    expect(at(event, ['response', 'model'], event.indexOf('data:'))).toBe('"m"');
  });
});

describe('nativeReply', () => {
  it("passes a Responses answer on byte for byte but for its model, with the upstream's counts", () => {
    const text = '{"id":"resp_1","object":"response","metadata":{"model":"up/model"},"model": "up/model","output":[{"type":"message","content":[{"type":"output_text","text":"é \\"model\\":"}]}],\n"usage":{"input_tokens":11,"output_tokens":4,"total_tokens":15}}';
    const reply = nativeReply('responses', Buffer.from(text), 'fast')!;
    expect(reply.bytes.toString()).toBe(text.replace('"model": "up/model"', '"model": "fast"'));
    expect(reply).toMatchObject({ promptTokens: 11, completionTokens: 4 });
  });

  it('counts a Messages prompt with the tokens its cache wrote and read', () => {
    const text = JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: 'up/model', content: [], usage: { input_tokens: 3, cache_creation_input_tokens: 100, cache_read_input_tokens: 20, output_tokens: 7 } });
    const reply = nativeReply('messages', Buffer.from(text), 'fast')!;
    expect(JSON.parse(reply.bytes.toString()).model).toBe('fast');
    expect(reply).toMatchObject({ promptTokens: 123, completionTokens: 7 });
  });

  it('leaves the bytes alone when the model is the public id already, and reports no counts it was not given', () => {
    const bytes = Buffer.from('{"object":"response","model":"fast","usage":null}');
    const reply = nativeReply('responses', bytes, 'fast')!;
    expect(reply.bytes).toBe(bytes);
    expect(reply).toMatchObject({ promptTokens: null, completionTokens: 0 });
  });

  it('refuses what is not JSON or not the API\'s answer', () => {
    expect(nativeReply('responses', Buffer.from('{"object":"resp'), 'fast')).toBeNull();
    expect(nativeReply('responses', Buffer.from('{"object":"chat.completion"}'), 'fast')).toBeNull();
    expect(nativeReply('messages', Buffer.from('[{"type":"message"}]'), 'fast')).toBeNull();
    expect(nativeReply('messages', Buffer.from('null'), 'fast')).toBeNull();
  });
});
