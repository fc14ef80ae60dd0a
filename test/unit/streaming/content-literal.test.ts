import { describe, expect, it } from 'vitest';
import { contentLiteral } from '../../../src/streaming/content-literal.ts';

const chunk = (content: string, tail = ']}') => `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"logprobs":null,"finish_reason":null}${tail}`;

describe('contentLiteral', () => {
  it('gives a content-only chunk\'s text as its JSON string literal, escapes and all', () => {
    for (const text of ['', 'Hello', 'a "quoted" word', 'ends with a backslash \\', '\\"', 'line\nbreak', 'é ✓ \u0000']) {
      const literal = contentLiteral(chunk(text));
      expect(literal).toBe(JSON.stringify(text));
      expect(JSON.parse(literal!)).toBe(text);
    }
    expect(contentLiteral(chunk('x', '],"usage":null}'))).toBe('"x"');
  });

  it('leaves every other chunk to be parsed', () => {
    const others = [
      chunk('x', '],"usage":{"prompt_tokens":1}}'),
      chunk('x', ',{"index":1,"delta":{"content":"y"},"logprobs":null,"finish_reason":null}]}'),
      '{"id":"c1","choices":[{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":"stop"}]}',
      '{"id":"c1","choices":[{"index":0,"delta":{"content":"x","role":"assistant"},"logprobs":null,"finish_reason":null}]}',
      '{"id":"c1","choices":[{"index":0,"delta":{"content":null,"tool_calls":[]},"logprobs":null,"finish_reason":null}]}',
      '{"id":"c1","usage":{"prompt_tokens":1},"choices":[{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":null}]}',
      '{"id":"c1","error":{"message":"boom"},"choices":[{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":null}]}',
      '{"choices":[{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":null}]}',
      '{"id":"c1","choices":[{"index":0,"delta":{"content":"unterminated',
    ];
    for (const payload of others) expect(contentLiteral(payload), payload).toBeNull();
  });
});
