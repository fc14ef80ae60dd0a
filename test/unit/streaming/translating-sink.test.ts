import { describe, expect, it } from 'vitest';
import { dataPayloads, onlyText, TextShape } from '../../../src/streaming/translating-sink.ts';

describe('dataPayloads', () => {
  it('reads each event of a batch, whatever its line ends, and joins multi-line data', () => {
    const text = 'data: {"a":1}\n\n: a comment\n\nevent: x\r\ndata:{"b":2}\r\n\r\ndata: one\ndata: two\n\ndata: [DONE]\n\n';
    expect(dataPayloads(text)).toEqual(['{"a":1}', '{"b":2}', 'one\ntwo', '[DONE]']);
  });

  it('takes a last event without its blank line, and nothing from comments alone', () => {
    expect(dataPayloads('data: {"a":1}')).toEqual(['{"a":1}']);
    expect(dataPayloads(': ping\n\n')).toEqual([]);
  });
});

describe('TextShape', () => {
  const chunk = (delta: string, rest = '"finish_reason":null') => `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":${delta},"logprobs":null,${rest}}]}`;
  const shape = TextShape.learn(chunk('{"content":"first"}'))!;

  it('gives the text of a chunk of the learned shape as its literal, which JSON.parse reads as the parsed chunk has it', () => {
    for (const text of ['Hello', 'quote " and backslash \\ and \n newline', 'čćžšđ 模型 🙂', '"content":"x"', '\u2028\u0000']) {
      const payload = chunk(`{"content":${JSON.stringify(text)}}`);
      expect(JSON.parse(shape.literalOf(payload)!)).toBe(JSON.parse(payload).choices[0].delta.content);
    }
    const spaced = TextShape.learn('{"choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": null}]}')!;
    expect(spaced.literalOf('{"choices": [{"index": 0, "delta": {"content": "spaced"}, "finish_reason": null}]}')).toBe('"spaced"');
  });

  it('leaves every chunk of another shape to the parser', () => {
    const others = [
      chunk('{"content":"x"}', '"finish_reason":"stop"'),
      chunk('{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}'),
      chunk('{"content":"x","refusal":"no"}'),
      `${chunk('{"content":"x"}').slice(0, -1)},"usage":{"prompt_tokens":1,"completion_tokens":1}}`,
      chunk('{"content":"a"},"logprobs":null,"finish_reason":null},{"index":1,"delta":{"content":"b"}'),
      chunk('{"content":"x","refusal":"y","content":"z"}'),
      '{"error":{"message":"boom"}}',
      '[DONE]',
    ];
    for (const payload of others) expect(shape.literalOf(payload), payload).toBeNull();
  });

  it('learns only from text-only chunks', () => {
    expect(onlyText(JSON.parse(chunk('{"content":"x"}')))).toBe('x');
    expect(onlyText(JSON.parse(chunk('{"content":"x"}', '"finish_reason":"stop"')))).toBeNull();
    expect(onlyText(JSON.parse(chunk('{"role":"assistant","content":""}')))).toBeNull();
    expect(onlyText(JSON.parse(`${chunk('{"content":"x"}').slice(0, -1)},"usage":{"prompt_tokens":1}}`))).toBeNull();
  });
});
