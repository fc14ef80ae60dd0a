import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { capturedExchange } from '../../helpers/captured-exchange.ts';
import { recordingResponse, streamContext as context } from '../../helpers/recording-response.ts';

const event = (index: number) => `data: {"id":"c","object":"chat.completion.chunk","model":"up/model","choices":[{"index":0,"delta":{"content":" w${index}"}}]}\n\n`;

const FINISH = 'data: {"id":"c","object":"chat.completion.chunk","model":"up/model","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n';

describe('relaying a stream', () => {
  it('sends the events of one upstream read together, the headers with the first and the end with the last', async () => {
    const { res, sends, counts } = recordingResponse();
    const ctx = context(res);
    const controller = { pause() {}, resume() {}, abort() {}, rawHeaders: null } as unknown as Dispatcher.DispatchController;
    const { handler, ended: outcome } = capturedExchange(ctx, ctx, false);
    handler.onRequestStart!(controller, {});
    // The response's head and one socket read of 120 events: undici calls back once per HTTP chunk, synchronously.
    handler.onResponseStart!(controller, 200, { 'content-type': 'text/event-stream' }, '');
    for (let index = 0; index < 120; index++) handler.onResponseData!(controller, Buffer.from(event(index)));
    expect(sends).toEqual([]);
    await Promise.resolve();
    // The status and headers go in the same send as the read's events.
    expect(sends).toHaveLength(1);
    expect(counts.writes).toBe(1);
    const sent = sends[0]!;
    expect(sent.startsWith('HTTP 200 OK\ndata: ')).toBe(true);
    expect(sent.split('data: ').length - 1).toBe(120);
    expect(sent).toContain('"model":"fast"');
    expect(sent).not.toContain('up/model');
    // The last read and the end of the response: its events, [DONE] and the end in one send.
    handler.onResponseData!(controller, Buffer.from(event(120)));
    handler.onResponseData!(controller, Buffer.from(FINISH));
    handler.onResponseData!(controller, Buffer.from('data: [DONE]\n\n'));
    handler.onResponseEnd!(controller, {});
    expect(sends.slice(1)).toEqual([event(120).replace('up/model', 'fast') + FINISH.replace('up/model', 'fast') + 'data: [DONE]\n\n']);
    await Promise.resolve();
    expect(sends).toHaveLength(2);
    // A read's events, their models rewritten, reach uWS as one write (one HTTP chunk), not a write per piece.
    expect(counts.writes).toBe(2);
    expect((await outcome).completionTokens).toBe(121);
  });

  it('sends the status and headers at once when the first event is not in the read that brought them', async () => {
    const { res, sends } = recordingResponse();
    const ctx = context(res);
    const controller = { pause() {}, resume() {}, abort() {}, rawHeaders: null } as unknown as Dispatcher.DispatchController;
    const { handler } = capturedExchange(ctx, ctx, false);
    handler.onRequestStart!(controller, {});
    handler.onResponseStart!(controller, 200, { 'content-type': 'text/event-stream' }, '');
    await Promise.resolve();
    expect(sends).toEqual(['HTTP 200 OK\n']);
    expect(ctx.status).toBe(200);
    handler.onResponseData!(controller, Buffer.from(event(0)));
    await Promise.resolve();
    expect(sends).toEqual(['HTTP 200 OK\n', event(0).replace('up/model', 'fast')]);
  });

  it('tells its listener once that the stream started, at its first bytes and not at its head (the engine has prefilled the prompt then)', async () => {
    const { res } = recordingResponse();
    const ctx = context(res);
    const controller = { pause() {}, resume() {}, abort() {}, rawHeaders: null } as unknown as Dispatcher.DispatchController;
    let started = 0;
    const { handler, ended: outcome } = capturedExchange(ctx, ctx, false, null, false, () => started++);
    handler.onRequestStart!(controller, {});
    handler.onResponseStart!(controller, 200, { 'content-type': 'text/event-stream' }, '');
    expect(started).toBe(0);
    handler.onResponseData!(controller, Buffer.from(event(0)));
    expect(started).toBe(1);
    handler.onResponseData!(controller, Buffer.from(event(1)));
    handler.onResponseData!(controller, Buffer.from(FINISH));
    handler.onResponseEnd!(controller, {});
    await outcome;
    expect(started).toBe(1);
  });
});
