import { describe, expect, it } from 'vitest';
import { dataPayloads } from '../../../src/streaming/translating-sink.ts';

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
