// Chat chunks in, Anthropic's Message stream out: the event sequence, blocks and their indexes,
// stop reasons, usage, failures, and the ping timer's life.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../../src/errors/api-error.ts';
import type { RequestContext } from '../../../../src/http/request-context.ts';
import { MessageStream, PING_EVENT, PING_EVERY_MS } from '../../../../src/protocols/messages/message-stream.ts';
import { EventBytes } from '../../../../src/streaming/event-bytes.ts';
import type { ChatChunk, StreamOut } from '../../../../src/streaming/stream-translator.ts';

const CTX = { promptTokens: 12, requestId: 'req_1' } as RequestContext;

/** Each event as its data, checking the `event:` line names the data's type. */
function events(text: string): any[] {
  if (text === '') return [];
  expect(text.endsWith('\n\n')).toBe(true);
  return text.slice(0, -2).split('\n\n').map((block) => {
    const [head, data, ...rest] = block.split('\n');
    expect(rest).toEqual([]);
    const parsed = JSON.parse(data!.slice('data: '.length));
    expect(head).toBe(`event: ${parsed.type}`);
    return parsed;
  });
}

const text = (content: string): ChatChunk => ({ choices: [{ index: 0, delta: { content } }] });
const finish = (reason: string, extra: Record<string, unknown> = {}): ChatChunk => ({ choices: [{ index: 0, delta: {}, finish_reason: reason, ...extra }] });
const usage: ChatChunk = { choices: [], usage: { prompt_tokens: 14, completion_tokens: 5 } };

function run(stream: MessageStream, chunks: ChatChunk[]): any[] {
  let out = '';
  for (const chunk of chunks) out += stream.chunk(chunk);
  return events(out + stream.done());
}

describe('MessageStream', () => {
  it('streams text as one block between message_start (and a ping) and message_delta, message_stop', () => {
    const all = run(new MessageStream(CTX, 'fast', []), [{ choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] }, text('Hel'), text('lo'), finish('stop'), usage]);
    expect(all.map((event) => event.type)).toEqual([
      'message_start', 'ping', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop',
    ]);
    const [start, , blockStart, first, second, stop, delta] = all;
    expect(start.message).toMatchObject({ type: 'message', role: 'assistant', model: 'fast', content: [], stop_reason: null, usage: { input_tokens: 12, output_tokens: 0 } });
    expect(start.message.id).toMatch(/^msg_/);
    expect(blockStart).toEqual({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', citations: null } });
    expect([first.delta, second.delta]).toEqual([{ type: 'text_delta', text: 'Hel' }, { type: 'text_delta', text: 'lo' }]);
    expect(stop).toEqual({ type: 'content_block_stop', index: 0 });
    expect(delta.delta).toMatchObject({ stop_reason: 'end_turn', stop_sequence: null });
    expect(delta.usage).toMatchObject({ input_tokens: 14, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
  });

  it('makes the same events from a text chunk\'s JSON literal as from the parsed chunk', () => {
    const parsed = new MessageStream(CTX, 'fast', []);
    const literal = new MessageStream(CTX, 'fast', []);
    const strip = (text: string) => text.replace(/"id":"msg_[^"]+"/, '"id":"msg_"');
    const textBytes = (json: string) => {
      const out = new EventBytes();
      literal.textBytes(out, Buffer.from(`x${json}x`), 1, Buffer.byteLength(json) + 1);
      return Buffer.from(out.take()).toString();
    };
    expect(strip(textBytes('""') + textBytes('"Hel"') + textBytes(JSON.stringify('lo "x" ✓')) + literal.chunk(finish('stop')) + literal.done()))
      .toBe(strip(parsed.chunk(text('')) + parsed.chunk(text('Hel')) + parsed.chunk(text('lo "x" ✓')) + parsed.chunk(finish('stop')) + parsed.done()));
  });

  it('gives each tool call its own tool_use block, its arguments as input_json_delta', () => {
    const call = (index: number, fields: Record<string, unknown>): ChatChunk => ({ choices: [{ index: 0, delta: { tool_calls: [{ index, ...fields }] } }] });
    const all = run(new MessageStream(CTX, 'fast', []), [
      text('Let me look.'),
      call(0, { id: 'call_abc', type: 'function', function: { name: 'get_time', arguments: '' } }),
      call(0, { function: { arguments: '{"zone":' } }),
      call(0, { function: { arguments: '"UTC"}' } }),
      call(1, { id: 'call_def', type: 'function', function: { name: 'get_weather', arguments: '{}' } }),
      finish('tool_calls'),
    ]);
    const blocks = all.filter((event) => event.type === 'content_block_start').map((event) => [event.index, event.content_block]);
    expect(blocks).toEqual([
      [0, { type: 'text', text: '', citations: null }],
      [1, { type: 'tool_use', id: 'toolu_abc', name: 'get_time', input: {}, caller: { type: 'direct' } }],
      [2, { type: 'tool_use', id: 'toolu_def', name: 'get_weather', input: {}, caller: { type: 'direct' } }],
    ]);
    const json = all.filter((event) => event.delta?.type === 'input_json_delta').map((event) => [event.index, event.delta.partial_json]);
    expect(json).toEqual([[1, '{"zone":'], [1, '"UTC"}'], [2, '{}']]);
    expect(all.filter((event) => event.type === 'content_block_stop').map((event) => event.index)).toEqual([0, 1, 2]);
    expect(all.at(-2).delta.stop_reason).toBe('tool_use');
  });

  it('maps the finish reasons, and names the stop sequence the model server reports', () => {
    const stopOf = (chunk: ChatChunk, stops: string[] = []) => run(new MessageStream(CTX, 'fast', stops), [text('x'), chunk]).at(-2).delta;
    expect(stopOf(finish('length'))).toMatchObject({ stop_reason: 'max_tokens', stop_sequence: null });
    expect(stopOf(finish('content_filter')).stop_reason).toBe('refusal');
    expect(stopOf(finish('stop', { stop_reason: 'END' }), ['END'])).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'END' });
    // A token id, or a sequence the client did not ask for: the reply ended by itself.
    expect(stopOf(finish('stop', { stop_reason: 2 }), ['END'])).toMatchObject({ stop_reason: 'end_turn', stop_sequence: null });
  });

  it('is well formed when no chunk came: done gives a whole empty message, a failure only its error', () => {
    expect(run(new MessageStream(CTX, 'fast', []), []).map((event) => event.type)).toEqual(['message_start', 'ping', 'message_delta', 'message_stop']);
    const failing = new MessageStream(CTX, 'fast', []);
    expect(events(failing.failed(new ApiError('upstream_timeout')))).toEqual([{ type: 'error', error: { type: 'timeout_error', message: expect.any(String) }, request_id: 'req_1' }]);
    expect(failing.done()).toBe('');
  });

  it('ends with the error event after a failure mid-block, and nothing after it', () => {
    const stream = new MessageStream(CTX, 'fast', []);
    expect(events(stream.chunk(text('partial'))).map((event) => event.type)).toEqual(['message_start', 'ping', 'content_block_start', 'content_block_delta']);
    expect(events(stream.failed({ message: 'The model server failed to answer.', code: 'upstream_error' }))).toMatchObject([{ type: 'error', error: { type: 'api_error' } }]);
    expect(stream.chunk(text('more'))).toBe('');
    expect(stream.done()).toBe('');
    expect(stream.failed(new ApiError('internal_error'))).toBe('');
  });
});

describe('pings', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function openOn(stream: MessageStream): { written: string[]; out: StreamOut & { closed: boolean } } {
    const written: string[] = [];
    const out = { closed: false, write: (events: string) => (written.push(events), true) };
    stream.opened(out);
    return { written, out };
  }

  it('sends one after a quiet period, none while chunks come, and stops its timer on done', () => {
    vi.useFakeTimers();
    const stream = new MessageStream(CTX, 'fast', []);
    stream.chunk(text('a'));
    const { written } = openOn(stream);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(PING_EVERY_MS);
    expect(written).toEqual([]);
    vi.advanceTimersByTime(PING_EVERY_MS);
    expect(written).toEqual([PING_EVENT]);
    stream.chunk(text('b'));
    vi.advanceTimersByTime(PING_EVERY_MS);
    expect(written).toEqual([PING_EVENT]);
    stream.done();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stops its timer on a failure, and at the next tick once the client is gone', () => {
    vi.useFakeTimers();
    const failed = new MessageStream(CTX, 'fast', []);
    openOn(failed);
    failed.failed(new ApiError('upstream_error'));
    expect(vi.getTimerCount()).toBe(0);

    const left = new MessageStream(CTX, 'fast', []);
    const { written, out } = openOn(left);
    out.closed = true;
    vi.advanceTimersByTime(PING_EVERY_MS);
    expect(written).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
