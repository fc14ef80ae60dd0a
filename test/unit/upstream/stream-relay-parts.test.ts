import { describe, expect, it, vi } from 'vitest';
import { ByteBatch } from '../../../src/streaming/byte-batch.ts';
import { SseEventSplitter } from '../../../src/upstream/sse-event-splitter.ts';
import { StreamEventFilter } from '../../../src/upstream/stream-event-filter.ts';
import { clampRetryAfter, statusError } from '../../../src/upstream/upstream-errors.ts';

function split(chunks: string[]): string[] {
  const splitter = new SseEventSplitter();
  const events: string[] = [];
  for (const chunk of chunks) {
    splitter.push(Buffer.from(chunk), (event, text) => {
      expect(text).toBe(event.toString('latin1'));
      events.push(event.toString());
    });
  }
  return events;
}

describe('SseEventSplitter', () => {
  it('joins events split across chunks and keeps several in one chunk apart', () => {
    expect(split(['data: {"a"', ':1}\n', '\ndata: 2\n\ndata: [DO', 'NE]\n\n'])).toEqual(['data: {"a":1}\n\n', 'data: 2\n\n', 'data: [DONE]\n\n']);
  });

  it('follows CRLF framing', () => {
    expect(split(['data: 1\r\n\r\ndata: 2\r', '\n\r\n'])).toEqual(['data: 1\r\n\r\n', 'data: 2\r\n\r\n']);
  });

  it('finds a terminator split over reads, in either framing, and keeps bytes past the last event', () => {
    expect(split(['data: 1\n', 'more', '\n', '\ndata: 2\n\ndata: 3'])).toEqual(['data: 1\nmore\n\n', 'data: 2\n\n']);
    expect(split(['data: 1\r', '\n', 'x\r\n\r', '\n'])).toEqual(['data: 1\r\nx\r\n\r\n']);
    expect(split(['data: 1', ' 2', ' 3\r\n', '\r\n'])).toEqual(['data: 1 2 3\r\n\r\n']);
    // A terminator spread over three reads, each shorter than it.
    expect(split(['data: 1\r', '\n', '\r', '\n'])).toEqual(['data: 1\r\n\r\n']);
    expect(split(['data: 1\n', 'x', '\n', '\n'])).toEqual(['data: 1\nx\n\n']);
    const crlf = `data: ${'x'.repeat(100)}\r\n\r\ndata: 2\r\n\r\n`;
    expect(split([...crlf])).toEqual([`data: ${'x'.repeat(100)}\r\n\r\n`, 'data: 2\r\n\r\n']);
    const splitter = new SseEventSplitter();
    splitter.push(Buffer.from('data: 1\n\ndata: 2'), () => {});
    splitter.push(Buffer.from(' and 3'), () => {});
    expect(splitter.pendingBytes).toBe('data: 2 and 3'.length);
    expect(splitter.pendingText()).toBe('data: 2 and 3');
  });

  it('joins and decodes an event sent in many reads about once, not on every read', () => {
    const splitter = new SseEventSplitter();
    const joins = vi.spyOn(Buffer, 'concat');
    const decodes = vi.spyOn(Buffer.prototype, 'toString');
    try {
      splitter.push(Buffer.from('data: {"content":"'), () => {});
      const piece = Buffer.alloc(1024, 'a');
      for (let read = 0; read < 200; read++) expect(splitter.push(piece, () => {})).toBe(true);
      // Each read decodes only itself and the few bytes around the seam: never the whole tail.
      const decoded = decodes.mock.contexts.reduce((sum, buffer) => sum + (buffer as Buffer).length, 0);
      expect(decoded).toBeLessThan(2 * 200 * 1024);
      const events: string[] = [];
      splitter.push(Buffer.from('"}\n\n'), (_event, text) => events.push(text));
      expect(events).toHaveLength(1);
      expect(events[0]!.length).toBe('data: {"content":"'.length + 200 * 1024 + 4);
      // Bytes joined, over all reads: about the event's size once, not once per read.
      const joined = joins.mock.results.reduce((sum, result) => sum + (result.value as Buffer).length, 0);
      expect(joined).toBeLessThan(2 * events[0]!.length);
    } finally {
      joins.mockRestore();
      decodes.mockRestore();
    }
  });

  it('refuses an event larger than the cap, whether it arrives whole or in pieces', () => {
    const pieces = new SseEventSplitter(4096);
    expect(pieces.push(Buffer.from('data: x\n\n'), () => {})).toBe(true);
    let refused = false;
    for (let read = 0; read < 10 && !refused; read++) refused = !pieces.push(Buffer.alloc(1024, 'a'), () => {});
    expect(refused).toBe(true);
    expect(pieces.overflowed).toBe(true);
    expect(pieces.pendingBytes).toBe(0);
    expect(pieces.push(Buffer.from('\n\n'), () => expect.unreachable())).toBe(false);
    const whole = new SseEventSplitter(4096);
    const events: string[] = [];
    expect(whole.push(Buffer.from(`data: 1\n\ndata: ${'a'.repeat(5000)}\n\n`), (_event, text) => events.push(text))).toBe(false);
    expect(events).toEqual(['data: 1\n\n']);
  });

  it('holds at most the cap by default (1 MiB) while no terminator comes', () => {
    const splitter = new SseEventSplitter();
    const piece = Buffer.alloc(16 * 1024, 'a');
    let reads = 0;
    while (splitter.push(piece, () => {})) reads++;
    expect(reads).toBe(64);
  });

  it('passes a chunk that is one whole event on as it is', () => {
    const splitter = new SseEventSplitter();
    const chunk = Buffer.from('data: 1\n\n');
    const events: Buffer[] = [];
    splitter.push(chunk, (event) => events.push(event));
    expect(events).toHaveLength(1);
    expect(events[0]).toBe(chunk);
  });
});

/** What the client gets for one event, or null when the filter drops it. */
function kept(filter: StreamEventFilter, event: Buffer): string | null {
  const out = new ByteBatch();
  filter.filter(event, event.toString('latin1'), out);
  return out.empty ? null : Buffer.from(out.take()).toString();
}

const chunk = (extra: string) => Buffer.from(`data: {"id":"c1","object":"chat.completion.chunk","model":"up/model",${extra}}\n\n`);

describe('StreamEventFilter', () => {
  it('reads the cached prompt tokens of the usage chunk', () => {
    const filter = new StreamEventFilter({ upstreamModel: 'up/model', publicModel: 'fast', forwardUsage: true });
    kept(filter, chunk('"choices":[],"usage":{"prompt_tokens":40,"completion_tokens":9,"prompt_tokens_details":{"cached_tokens":32}}'));
    expect(filter.usage).toEqual({ promptTokens: 40, completionTokens: 9, cachedPromptTokens: 32 });
    kept(filter, chunk('"choices":[],"usage":{"prompt_tokens":40,"completion_tokens":9,"prompt_tokens_details":null}'));
    expect(filter.usage).toEqual({ promptTokens: 40, completionTokens: 9, cachedPromptTokens: 0 });
  });

  it('rewrites the model, counts content, and drops the usage chunk nobody asked for', () => {
    const filter = new StreamEventFilter({ upstreamModel: 'up/model', publicModel: 'fast', forwardUsage: false });
    expect(kept(filter, chunk('"choices":[{"index":0,"delta":{"content":"Hi"}}]'))).toContain('"model":"fast"');
    expect(kept(filter, chunk('"choices":[{"index":0,"delta":{"content":""}}]'))).not.toBeNull();
    expect(filter.contentEvents).toBe(1);
    expect(kept(filter, chunk('"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":9,"total_tokens":13}'))).toBeNull();
    expect(filter.usage).toEqual({ promptTokens: 4, completionTokens: 9, cachedPromptTokens: 0 });
    expect(kept(filter, chunk('"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]'))).not.toBeNull();
    expect(filter.finished).toBe(true);
    expect(kept(filter, Buffer.from('data: [DONE]\n\n'))).toBe('data: [DONE]\n\n');
    expect(filter.doneRelayed).toBe(true);
  });

  it('hands on an event it keeps as it is, and a rewritten one as ranges around the new model', () => {
    const filter = new StreamEventFilter({ upstreamModel: 'up/model', publicModel: 'fast', forwardUsage: false });
    const done = Buffer.from('data: [DONE]\n\n');
    const out = new ByteBatch();
    filter.finished = true;
    filter.filter(done, done.toString('latin1'), out);
    expect(out.take()).toBe(done);
    const event = chunk('"choices":[{"index":0,"delta":{"content":"Hi"}}]');
    filter.filter(event, event.toString('latin1'), out);
    expect(Buffer.from(out.take()).toString()).toBe(event.toString().replace('"model":"up/model"', '"model":"fast"'));
  });

  it('forwards the usage chunk when asked and leaves usage:null chunks alone', () => {
    const filter = new StreamEventFilter({ upstreamModel: 'up/model', publicModel: 'up/model', forwardUsage: true });
    const nullUsage = chunk('"choices":[{"index":0,"delta":{"content":"a"}}],"usage":null');
    expect(kept(filter, nullUsage)).toBe(nullUsage.toString());
    expect(kept(filter, chunk('"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}'))).not.toBeNull();
  });

  it('recognises [DONE] and an error only at the start of the payload', () => {
    const filter = new StreamEventFilter({ upstreamModel: 'up/model', publicModel: 'fast', forwardUsage: false });
    const mentions = chunk('"choices":[{"index":0,"delta":{"content":"[DONE] \\"error\\": no"}}],"x":{"error":1}');
    expect(kept(filter, mentions)).toContain('"model":"fast"');
    expect(filter.upstreamError).toBeNull();
    filter.finished = true;
    expect(kept(filter, Buffer.from('data: [DON\n\n'))).toBe('data: [DON\n\n');
    expect(filter.doneRelayed).toBe(false);
    expect(kept(filter, Buffer.from('data:[DONE]\n\n'))).toBe('data:[DONE]\n\n');
    expect(filter.doneRelayed).toBe(true);
  });

  it('reads JSON written with spaces after the colons (Python json.dumps) as well', () => {
    const filter = new StreamEventFilter({ upstreamModel: 'up/model', publicModel: 'fast', forwardUsage: false });
    const spaced = (extra: string) => Buffer.from(`data: {"id": "c1", "model" : "up/model", ${extra}}\n\n`);
    expect(kept(filter, spaced('"choices": [{"index": 0, "delta": {"content": "Hi"}}]'))).toBe(
      'data: {"id": "c1", "model":"fast", "choices": [{"index": 0, "delta": {"content": "Hi"}}]}\n\n',
    );
    expect(filter.contentEvents).toBe(1);
    expect(kept(filter, spaced('"choices": [], "usage": {"prompt_tokens": 4, "completion_tokens": 9}'))).toBeNull();
    expect(filter.usage).toEqual({ promptTokens: 4, completionTokens: 9, cachedPromptTokens: 0 });
  });

  it('takes a key only where it is one: not inside a string, not as a value, not another model', () => {
    const filter = new StreamEventFilter({ upstreamModel: 'up/model', publicModel: 'fast', forwardUsage: false });
    const inText = chunk('"choices":[{"index":0,"delta":{"content":"say \\"usage\\": {} and \\"model\\":\\"up/model\\""}}]');
    expect(kept(filter, inText)).toBe(inText.toString().replace('"model":"up/model"', '"model":"fast"'));
    expect(filter.usage).toBeNull();
    expect(filter.contentEvents).toBe(1);
    const other = Buffer.from('data: {"model":"other","choices":[{"delta":{"role":"model","content":""}}]}\n\n');
    expect(kept(filter, other)).toBe(other.toString());
    expect(filter.contentEvents).toBe(1);
  });

  it('learns that a choice finished from a finish_reason string, also next to content, and never from null', () => {
    const filter = new StreamEventFilter({ upstreamModel: 'up/model', publicModel: 'fast', forwardUsage: false });
    const content = (text: string, finish: string) => chunk(`"choices":[{"index":0,"delta":{"content":"${text}"},"finish_reason":${finish}}]`);
    kept(filter, content('a', 'null'));
    kept(filter, content('b', 'null'));
    expect(filter.finished).toBe(false);
    const spaced = Buffer.from('data: {"model": "up/model", "choices": [{"delta": {"content": "c"}, "finish_reason" : "length"}]}\n\n');
    expect(kept(filter, spaced)).toContain('"model":"fast"');
    expect(filter.finished).toBe(true);
    expect(filter.contentEvents).toBe(3);
  });

  it('does not take an event that finishes as the shape of the ones that follow', () => {
    const filter = new StreamEventFilter({ upstreamModel: 'up/model', publicModel: 'fast', forwardUsage: false });
    const finishing = chunk('"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]');
    kept(filter, finishing);
    expect(filter.finished).toBe(true);
    const other = new StreamEventFilter({ upstreamModel: 'up/model', publicModel: 'fast', forwardUsage: false });
    kept(other, chunk('"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]'));
    kept(other, chunk('"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":null}]'));
    expect(other.finished).toBe(false);
    kept(other, finishing);
    expect(other.finished).toBe(true);
  });

  it('holds back a [DONE] that comes before any choice finished', () => {
    const filter = new StreamEventFilter({ upstreamModel: 'up/model', publicModel: 'fast', forwardUsage: false });
    kept(filter, chunk('"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]'));
    expect(kept(filter, Buffer.from('data: [DONE]\n\n'))).toBeNull();
    expect(filter.doneRelayed).toBe(false);
  });

  it('passes comments and other SSE fields, and marks the stream broken at a line that is none', () => {
    const filter = new StreamEventFilter({ upstreamModel: 'up/model', publicModel: 'fast', forwardUsage: false });
    for (const event of [': keep-alive\n\n', 'event: message\nid: 7\nretry: 10\ndata: {"choices":[]}\r\n\r\n', 'data: 1\ndata: 2\n\n']) {
      expect(kept(filter, Buffer.from(event))).toBe(event);
    }
    expect(filter.broken).toBeNull();
    expect(kept(filter, Buffer.from('data: {"choices":[]}\n<html>\n\n'))).toBeNull();
    expect(filter.broken).not.toBeNull();
    const junk = new StreamEventFilter({ upstreamModel: 'up/model', publicModel: 'fast', forwardUsage: false });
    expect(kept(junk, Buffer.from('\u00a7x\u0001garbage\n\n'))).toBeNull();
    expect(junk.broken).not.toBeNull();
  });

  it('rewrites the model at its byte position when multi-byte text comes before it', () => {
    const filter = new StreamEventFilter({ upstreamModel: 'up/model', publicModel: 'fast', forwardUsage: false });
    const event = Buffer.from('data: {"choices":[{"index":0,"delta":{"content":"čaša 日本 🙂 \\"model\\":\\"up/model\\""}}],"model" :  "up/model","usage":null}\n\n');
    expect(kept(filter, event)).toBe('data: {"choices":[{"index":0,"delta":{"content":"čaša 日本 🙂 \\"model\\":\\"up/model\\""}}],"model":"fast","usage":null}\n\n');
    expect(filter.contentEvents).toBe(1);
    expect(filter.usage).toBeNull();
  });

  it('keeps a character whose bytes arrive in two reads whole', () => {
    const filter = new StreamEventFilter({ upstreamModel: 'up/model', publicModel: 'fast', forwardUsage: false });
    const splitter = new SseEventSplitter();
    const event = Buffer.from('data: {"choices":[{"delta":{"content":"日本"}}],"model":"up/model"}\n\n');
    const cut = event.indexOf(Buffer.from('本')) + 1;
    const out = new ByteBatch();
    for (const read of [event.subarray(0, cut), event.subarray(cut)]) splitter.push(Buffer.from(read), (piece, text) => filter.filter(piece, text, out));
    expect(Buffer.from(out.take()).toString()).toBe('data: {"choices":[{"delta":{"content":"日本"}}],"model":"fast"}\n\n');
    expect(filter.contentEvents).toBe(1);
  });

  it('counts tool-call argument fragments as completion deltas (the estimate when usage never comes)', () => {
    const filter = new StreamEventFilter({ upstreamModel: 'up/model', publicModel: 'fast', forwardUsage: false });
    const head = chunk('"choices":[{"index":0,"delta":{"content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}}]');
    expect(kept(filter, head)).toContain('"model":"fast"');
    expect(filter.contentEvents).toBe(0);
    for (const fragment of ['{\\"a', '\\":1}']) kept(filter, chunk(`"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"${fragment}"}}]}}]`));
    expect(filter.contentEvents).toBe(2);
  });

  it('replaces an upstream error event with ours', () => {
    const filter = new StreamEventFilter({ upstreamModel: 'm', publicModel: 'fast', forwardUsage: false });
    const out = kept(filter, Buffer.from('data: {"error":{"message":"boom","type":"InternalServerError","param":null,"code":500}}\n\n'));
    expect(JSON.parse(out!.slice(6)).error).toMatchObject({ code: 'upstream_error', type: 'server_error' });
    expect(filter.upstreamError?.code).toBe('upstream_error');
  });
});

describe('upstream errors', () => {
  it('clamps Retry-After to 1–60 s, in seconds or as a date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(clampRetryAfter(undefined, now)).toBe(1);
    expect(clampRetryAfter('0.2', now)).toBe(1);
    expect(clampRetryAfter('7', now)).toBe(7);
    expect(clampRetryAfter('86400', now)).toBe(60);
    expect(clampRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(clampRetryAfter('soon', now)).toBe(1);
  });

  it('maps statuses without blaming the client key', () => {
    expect(statusError(401, '', undefined).status).toBe(502);
    expect(statusError(404, '{"detail":"Not Found"}', undefined).code).toBe('upstream_error');
    expect(statusError(422, '{"detail":"x"}', undefined).code).toBe('upstream_bad_request');
  });
});
