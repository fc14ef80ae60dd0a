import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import type { Abortable } from '../../../src/http/request-context.ts';
import { capturedExchange } from '../../helpers/captured-exchange.ts';

/**
 * A JSON completion exchange whose dispatcher keeps the handler; `ended` settles with its outcome or
 * failure. Its controller tells the handler of an abort, as undici's does, and keeps the reasons.
 */
function jsonExchange(asBytes: boolean, client: Abortable = { requestId: 'req-1', aborted: false, onAbort: null }, cachedInputPriced = false) {
  let handler!: Dispatcher.DispatchHandler;
  const aborts: unknown[] = [];
  const controller = {
    pause() {}, resume() {}, rawHeaders: null,
    abort(reason: Error) {
      aborts.push(reason);
      handler.onResponseError!(controller as unknown as Dispatcher.DispatchController, reason);
    },
  } as unknown as Dispatcher.DispatchController;
  const exchange = capturedExchange(client, null, asBytes, null, cachedInputPriced);
  const { ended } = exchange;
  handler = exchange.handler;
  handler.onRequestStart!(controller, {});
  /** The response: its status, then its body in the pieces given. */
  const answer = (status: number, pieces: readonly string[]) => {
    handler.onResponseStart!(controller, status, { 'content-type': 'application/json' }, '');
    for (const piece of pieces) handler.onResponseData!(controller, Buffer.from(piece));
    handler.onResponseEnd!(controller, {});
  };
  return { ended, answer, aborts };
}

const completion = JSON.stringify({
  id: 'c', object: 'chat.completion', model: 'up/model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
});

/** `text` cut into `count` pieces of about equal length. */
function pieces(text: string, count: number): string[] {
  const size = Math.ceil(text.length / count);
  return Array.from({ length: count }, (_, index) => text.slice(index * size, (index + 1) * size));
}

describe('a JSON completion from an upstream', () => {
  it.each([1, 2, 5])('is read whole from %i body chunks, as bytes', async (count) => {
    const { ended, answer } = jsonExchange(true);
    answer(200, pieces(completion, count));
    const outcome = await ended;
    expect(outcome.promptTokens).toBe(3);
    expect(outcome.completionTokens).toBe(1);
    expect(JSON.parse(Buffer.from(outcome.bytes!).toString()).model).toBe('fast');
  });

  it.each([true, false])('reads the cached prompt tokens only when the price tells them apart (as bytes: %s)', async (asBytes) => {
    const cached = JSON.stringify({ ...JSON.parse(completion), usage: { prompt_tokens: 30, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 20 } } });
    const client = { requestId: 'req-1', aborted: false, onAbort: null };
    const priced = jsonExchange(asBytes, client, true);
    priced.answer(200, [cached]);
    expect(await priced.ended).toMatchObject({ promptTokens: 30, cachedPromptTokens: 20 });
    const unpriced = jsonExchange(asBytes, client, false);
    unpriced.answer(200, [cached]);
    expect(await unpriced.ended).toMatchObject({ promptTokens: 30, cachedPromptTokens: 0 });
  });

  it.each([1, 3])('is read whole from %i body chunks, parsed', async (count) => {
    const { ended, answer } = jsonExchange(false);
    answer(200, pieces(completion, count));
    const outcome = await ended;
    expect(outcome.body?.model).toBe('fast');
    expect(outcome.completionTokens).toBe(1);
  });

  it('without a body is an invalid response', async () => {
    const { ended, answer } = jsonExchange(true);
    answer(200, []);
    await expect(ended).rejects.toMatchObject({ apiError: { code: 'upstream_error', message: 'The model server sent an invalid response.' } });
  });

  it.each([1, 4])("that fails carries the upstream's message read from %i body chunks", async (count) => {
    const { ended, answer } = jsonExchange(true);
    answer(400, pieces(JSON.stringify({ error: { message: 'messages must not be empty' } }), count));
    await expect(ended).rejects.toMatchObject({
      apiError: { code: 'upstream_bad_request', message: 'The model server rejected the request: messages must not be empty' },
    });
  });

  // As a drain's interrupt calls it: before anything marks the client gone.
  it('is aborted upstream when its owner calls onAbort, and ends without a completion', async () => {
    const client: Abortable = { requestId: 'req-1', aborted: false, onAbort: null };
    const { ended, aborts } = jsonExchange(true, client);
    expect(aborts).toHaveLength(0);
    client.onAbort!();
    expect(aborts).toHaveLength(1);
    expect(await ended).toEqual({ promptTokens: null, completionTokens: 0 });
    expect(client.onAbort).toBeNull();
  });

  it('is aborted upstream at once when its client has left already', async () => {
    const client: Abortable = { requestId: 'req-1', aborted: true, onAbort: null };
    const { ended, aborts } = jsonExchange(true, client);
    expect(aborts).toHaveLength(1);
    expect(await ended).toEqual({ promptTokens: null, completionTokens: 0 });
  });
});
