import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../../src/http/request-context.ts';
import { MessageStream } from '../../../src/protocols/messages/message-stream.ts';
import { responseFrame } from '../../../src/protocols/responses/response-object.ts';
import { ResponsesStream } from '../../../src/protocols/responses/responses-stream.ts';
import type { ResponsesBody } from '../../../src/protocols/responses/responses-request.ts';
import { EventBytes } from '../../../src/streaming/event-bytes.ts';
import type { SseWriter } from '../../../src/streaming/sse-writer.ts';
import type { StreamTranslator } from '../../../src/streaming/stream-translator.ts';
import { onlyText, TextShape } from '../../../src/streaming/text-shape.ts';
import { dataPayloads, TranslatingSink } from '../../../src/streaming/translating-sink.ts';

const chunk = (delta: string, rest = '"finish_reason":null') => `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":${delta},"logprobs":null,${rest}}]}`;
const textChunk = (text: string) => chunk(`{"content":${JSON.stringify(text)}}`);
const event = (payload: string) => `data: ${payload}\n\n`;

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
  const shape = TextShape.learn(textChunk('first'))!;
  /** The literal of `payload` read by the shape from the event's bytes, or null when it is not of the shape. */
  const literalOf = (payload: string, before = ''): string | null => {
    const bytes = Buffer.from(before + event(payload));
    const at = Buffer.byteLength(before);
    const close = shape.closingQuote(bytes, at);
    if (close === -1) return null;
    expect(close + shape.tailLength).toBe(bytes.length);
    return bytes.toString('utf8', shape.literalStart(at), close + 1);
  };

  it('gives the text of a chunk of the learned shape as its literal, which JSON.parse reads as the parsed chunk has it', () => {
    for (const text of ['Hello', 'quote " and backslash \\ and \n newline', 'čćžšđ 模型 🙂', '"content":"x"', '\u2028\u0000']) {
      const payload = textChunk(text);
      expect(JSON.parse(literalOf(payload)!)).toBe(JSON.parse(payload).choices[0].delta.content);
      expect(JSON.parse(literalOf(payload, event(textChunk('before')))!)).toBe(text);
    }
    const spaced = TextShape.learn('{"choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": null}]}')!;
    const bytes = Buffer.from(event('{"choices": [{"index": 0, "delta": {"content": "spaced"}, "finish_reason": null}]}'));
    expect(bytes.toString('utf8', spaced.literalStart(0), spaced.closingQuote(bytes, 0) + 1)).toBe('"spaced"');
  });

  it('leaves every chunk of another shape to the parser', () => {
    const others = [
      chunk('{"content":"x"}', '"finish_reason":"stop"'),
      chunk('{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}'),
      chunk('{"content":"x","refusal":"no"}'),
      `${textChunk('x').slice(0, -1)},"usage":{"prompt_tokens":1,"completion_tokens":1}}`,
      chunk('{"content":"a"},"logprobs":null,"finish_reason":null},{"index":1,"delta":{"content":"b"}'),
      chunk('{"content":"x","refusal":"y","content":"z"}'),
      '{"error":{"message":"boom"}}',
      '[DONE]',
    ];
    for (const payload of others) expect(literalOf(payload), payload).toBeNull();
    // Cut short, or ended by \r\n\r\n: not of the shape either.
    const whole = Buffer.from(event(textChunk('x')));
    expect(shape.closingQuote(whole.subarray(0, whole.length - 1), 0)).toBe(-1);
    expect(shape.closingQuote(Buffer.from(`data: ${textChunk('x')}\r\n\r\n`), 0)).toBe(-1);
  });

  it('learns only from text-only chunks', () => {
    expect(onlyText(JSON.parse(textChunk('x')))).toBe('x');
    expect(onlyText(JSON.parse(chunk('{"content":"x"}', '"finish_reason":"stop"')))).toBeNull();
    expect(onlyText(JSON.parse(chunk('{"role":"assistant","content":""}')))).toBeNull();
    expect(onlyText(JSON.parse(`${textChunk('x').slice(0, -1)},"usage":{"prompt_tokens":1}}`))).toBeNull();
  });
});

describe('EventBytes', () => {
  it('joins pieces, ranges, numbers and text, and grows past its first buffer', () => {
    const out = new EventBytes();
    const big = 'é'.repeat(40_000);
    out.piece(Buffer.from('n='));
    for (const value of [0, 7, 10, 99, 100, 12_345, 9_007_199_254_740_991]) {
      out.decimal(value);
      out.text(',');
    }
    out.range(Buffer.from('xx[range]xx'), 2, 9);
    out.range(Buffer.from(`<${big}>`), 1, 1 + Buffer.byteLength(big));
    out.text(big);
    expect(Buffer.from(out.take()).toString()).toBe(`n=0,7,10,99,100,12345,9007199254740991,[range]${big}${big}`);
    expect(out.length).toBe(0);
  });
});

/** The translator's output for `events`, written to a TranslatingSink in the reads given. */
function translate(translator: StreamTranslator, reads: readonly (string | Uint8Array)[]): string {
  let written = '';
  const keep = (events: string | Uint8Array) => {
    written += typeof events === 'string' ? events : Buffer.from(events).toString();
  };
  const writer = { closed: false, open: (_: unknown, events: string | Uint8Array) => (keep(events), true), write: (events: string | Uint8Array) => (keep(events), true), end: (last: string, events: string | Uint8Array) => { keep(events); keep(last); }, whenWritable: () => {} };
  const sink = new TranslatingSink(writer as unknown as SseWriter, translator);
  sink.open({});
  for (const read of reads.slice(0, -1)) sink.write(read);
  sink.end('', reads.at(-1));
  return written;
}

describe('TranslatingSink', () => {
  const texts = ['Hel', 'lo, "world"', ' čćž 模型 🙂', '\n\\', 'x'.repeat(200), 'end'];
  const stream = [
    event(chunk('{"role":"assistant","content":""}')),
    ...texts.map((text) => event(textChunk(text))),
    event(chunk('{"content":""}', '"finish_reason":"stop"')),
    event('{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":9}}'),
    'data: [DONE]\n\n',
  ];
  const body = { model: 'm', input: 'hi' } as ResponsesBody;
  const translators: Record<string, () => StreamTranslator> = {
    responses: () => new ResponsesStream(responseFrame('resp_1', 1, 'm', body, false)),
    messages: () => new MessageStream({ promptTokens: 3, requestId: 'req_1' } as RequestContext, 'm', []),
  };
  /** Random ids replaced, so that two runs compare. */
  const steady = (text: string) => text.replace(/"(msg|fc)_[\w-]+"/g, '"$1_"').replace(/"completed_at":\d+/g, '"completed_at":0');

  for (const [name, make] of Object.entries(translators)) {
    it(`${name}: the same events whether the text chunks are read by their shape, as bytes or as strings, one read each or batched`, () => {
      // Without textBytes every chunk is parsed: the reference the shape's fast path must match.
      const slow = steady(translate(withoutTextBytes(make()), stream));
      expect(slow).toContain(name === 'responses' ? '"delta":"lo, \\"world\\""' : '"text":"lo, \\"world\\""');
      for (const text of texts) expect(slow).toContain(JSON.stringify(text).slice(1, -1));
      expect(steady(translate(make(), stream.map((piece) => Buffer.from(piece))))).toBe(slow);
      expect(steady(translate(make(), stream))).toBe(slow);
      expect(steady(translate(make(), [Buffer.from(stream.slice(0, 4).join('')), Buffer.from(stream.slice(4).join(''))]))).toBe(slow);
    });
  }

  it('responses: the completed response holds the text the deltas carried', () => {
    const translator = translators['responses']!() as ResponsesStream;
    translate(translator, stream.map((piece) => Buffer.from(piece)));
    const output = translator.final?.['output'] as { content: { text: string }[] }[];
    expect(output[0]!.content[0]!.text).toBe(texts.join(''));
  });

  it('parses an event that is not one data line, and reports one that is not JSON', () => {
    const translator = translators['responses']!();
    const written = translate(translator, [Buffer.from(`${event(textChunk('a'))}: comment\n\ndata: ${textChunk('b')}\r\n\r\n`), Buffer.from('data: {not json\n\n')]);
    expect(written).toContain('"delta":"a"');
    expect(written).toContain('"delta":"b"');
    expect(written).toContain('event: response.failed');
  });
});

/** The translator as one without the text fast path: every chunk parsed. */
function withoutTextBytes(translator: StreamTranslator): StreamTranslator {
  return {
    chunk: (value) => translator.chunk(value),
    done: () => translator.done(),
    failed: (error) => translator.failed(error),
  };
}
