import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/errors/api-error.ts';
import { ByteBatch } from '../../../src/streaming/byte-batch.ts';
import { MessagesStreamFilter } from '../../../src/upstream/messages-stream-filter.ts';
import type { NativeStreamFilter } from '../../../src/upstream/native-stream-filter.ts';
import { ResponsesStreamFilter } from '../../../src/upstream/responses-stream-filter.ts';
import { SseEventSplitter } from '../../../src/upstream/sse-event-splitter.ts';
import { messagesEvents, responsesEvents, sse } from '../../helpers/native-events.ts';

/** What the client gets of `stream` sent in reads of `readBytes`. */
function relayed(filter: NativeStreamFilter, stream: string, readBytes = 64): string {
  const splitter = new SseEventSplitter();
  const out = new ByteBatch();
  let sent = '';
  const bytes = Buffer.from(stream);
  for (let at = 0; at < bytes.length; at += readBytes) {
    splitter.push(bytes.subarray(at, at + readBytes), (event, text) => filter.filter(event, text, out));
    sent += Buffer.from(out.take()).toString();
  }
  return sent;
}

/** The data of each event in `stream`, parsed, with its event name. */
function events(stream: string): Array<{ name: string | null; data: any }> {
  return stream.split('\n\n').filter(Boolean).map((block) => {
    const name = /^event: (.*)$/m.exec(block)?.[1] ?? null;
    return { name, data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) };
  });
}

describe('ResponsesStreamFilter', () => {
  it('passes the stream on byte for byte but for the model, reads usage, and knows it is whole', () => {
    const stream = responsesEvents('up/model', ['Hel', 'lo'], { input: 12, output: 2 }).join('');
    const filter = new ResponsesStreamFilter('fast');
    expect(relayed(filter, stream)).toBe(stream.replaceAll('"model":"up/model"', '"model":"fast"'));
    expect(filter).toMatchObject({ finished: true, usage: { promptTokens: 12, completionTokens: 2 }, contentEvents: 2, broken: null, upstreamError: null });
    expect(filter.closingEvents()).toBe('');
  });

  it('reads the type from the data when the server names no events, with any spacing', () => {
    const stream = responsesEvents('up/model', ['a', 'b', 'c'], { input: 5, output: 3 })
      .map((event) => event.replace(/^event: .*\n/, '').replace('"model":"up/model"', '"model" :  "up/model"'))
      .join('');
    const filter = new ResponsesStreamFilter('fast');
    expect(relayed(filter, stream, 7)).toBe(stream.replaceAll('"model" :  "up/model"', '"model" :  "fast"'));
    expect(filter).toMatchObject({ finished: true, usage: { promptTokens: 5, completionTokens: 3 }, contentEvents: 3 });
  });

  it('a stream cut short is not finished; its failure event is response.failed with the response it had, numbered next', () => {
    const stream = responsesEvents('up/model', ['Hel'], { input: 1, output: 1 }, false).join('');
    const filter = new ResponsesStreamFilter('fast');
    relayed(filter, stream);
    expect(filter).toMatchObject({ finished: false, usage: null, contentEvents: 1 });
    const [failed] = events(filter.failureEvents(new ApiError('upstream_error', { message: 'cut' })));
    expect(failed).toEqual({
      name: 'response.failed',
      data: { type: 'response.failed', sequence_number: 5, response: expect.objectContaining({ id: 'resp_mock1', object: 'response', model: 'fast', status: 'failed', error: { code: 'server_error', message: 'cut' } }) },
    });
  });

  it('a stream that failed before its first event still gets a whole response.failed', () => {
    const [failed] = events(new ResponsesStreamFilter('fast').failureEvents({ message: 'gone' }));
    expect(failed!.data).toMatchObject({ type: 'response.failed', sequence_number: 0, response: { object: 'response', model: 'fast', status: 'failed', output: [], error: { message: 'gone' } } });
    expect(failed!.data.response.id).toMatch(/^resp_/);
  });

  it("the upstream's response.failed or error event ends the stream as the upstream's failure", () => {
    for (const last of [
      sse('response.failed', { type: 'response.failed', sequence_number: 2, response: { id: 'resp_mock1', object: 'response', model: 'up/model', status: 'failed', error: { code: 'server_error', message: 'boom' } } }),
      sse('error', { type: 'error', code: 'server_error', message: 'boom', param: null, sequence_number: 2 }),
    ]) {
      const filter = new ResponsesStreamFilter('fast');
      const sent = relayed(filter, responsesEvents('up/model', [], { input: 1, output: 1 }, false).slice(0, 2).join('') + last);
      expect(sent.endsWith(last.replace('"up/model"', '"fast"'))).toBe(true);
      expect(filter.finished).toBe(true);
      expect(filter.upstreamError?.message).toBe('The model server failed mid-stream: boom');
    }
  });

  it('bytes that are not SSE lines, or a lifecycle event that is not JSON, break the stream', () => {
    const junk = new ResponsesStreamFilter('fast');
    relayed(junk, 'event: response.created\nnonsense\n\n');
    expect(junk.broken).toMatch(/not server-sent events/);
    const invalid = new ResponsesStreamFilter('fast');
    relayed(invalid, 'event: response.completed\ndata: {"response":\n\n');
    expect(invalid.broken).toMatch(/not a JSON object/);
  });
});

describe('MessagesStreamFilter', () => {
  it('passes the stream on byte for byte but for the model, with the usage of message_start and message_delta', () => {
    const stream = messagesEvents('up/model', ['Hel', 'lo', '!'], { input: 9, output: 4 }).join('');
    const filter = new MessagesStreamFilter('fast');
    expect(relayed(filter, stream, 50)).toBe(stream.replace('"model":"up/model"', '"model":"fast"'));
    expect(filter).toMatchObject({ finished: true, usage: { promptTokens: 9, completionTokens: 4 }, contentEvents: 3 });
  });

  it('bills a prompt with its cache tokens, and counts a cut stream\'s output by its deltas', () => {
    const start = sse('message_start', { type: 'message_start', message: { id: 'm', type: 'message', model: 'up/model', usage: { input_tokens: 2, cache_read_input_tokens: 30, output_tokens: 1 } } });
    const filter = new MessagesStreamFilter('fast');
    relayed(filter, start + messagesEvents('up/model', ['a', 'b'], { input: 0, output: 0 }, false).slice(1).join(''));
    expect(filter).toMatchObject({ finished: false, usage: { promptTokens: 32, completionTokens: 2 } });
  });

  it('fails a cut stream with Anthropic\'s error event', () => {
    const filter = new MessagesStreamFilter('fast');
    expect(events(filter.failureEvents(new ApiError('upstream_timeout')))).toEqual([{ name: 'error', data: { type: 'error', error: { type: 'timeout_error', message: new ApiError('upstream_timeout').message } } }]);
    expect(events(filter.failureEvents({ message: 'cut' }))[0]!.data.error).toEqual({ type: 'api_error', message: 'cut' });
  });

  it("the upstream's error event ends the stream as its failure; an unnamed event passes untouched", () => {
    const filter = new MessagesStreamFilter('fast');
    const unnamed = 'data: {"type":"message_stop"}\n\n';
    const error = sse('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    expect(relayed(filter, unnamed + error)).toBe(unnamed + error);
    expect(filter).toMatchObject({ finished: true, upstreamError: { code: 'upstream_error', message: 'The model server failed mid-stream: Overloaded' } });
  });
});
