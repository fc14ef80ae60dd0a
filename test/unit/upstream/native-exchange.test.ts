import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import type { NativeApi } from '../../../src/upstream/native-request.ts';
import { capturedExchange } from '../../helpers/captured-exchange.ts';
import { messageObject, outputMessage, responseObject } from '../../helpers/native-events.ts';

/** A JSON exchange of a native request; `answer` plays the upstream. */
function nativeExchange(api: NativeApi) {
  const controller = { pause() {}, resume() {}, abort() {}, rawHeaders: null } as unknown as Dispatcher.DispatchController;
  const { handler, ended } = capturedExchange({ requestId: 'req-1', aborted: false, onAbort: null }, null, true, { api, body: { model: 'fast' }, source: null, headers: [] });
  handler.onRequestStart!(controller, {});
  const answer = (status: number, body: string, headers: Record<string, string> = {}) => {
    handler.onResponseStart!(controller, status, { 'content-type': 'application/json', ...headers }, '');
    handler.onResponseData!(controller, Buffer.from(body));
    handler.onResponseEnd!(controller, {});
  };
  return { ended, answer };
}

describe('the JSON answer of an upstream that speaks the request\'s API', () => {
  it('comes back as its bytes, model set to the public id, with its usage, and no chat completion', async () => {
    const { ended, answer } = nativeExchange('responses');
    const body = JSON.stringify(responseObject('up/model', 'completed', { output: [outputMessage('hi')], usage: { input_tokens: 8, output_tokens: 1, total_tokens: 9 } }));
    answer(200, body, { 'x-request-id': 'up-1' });
    const outcome = await ended;
    expect(Buffer.from(outcome.nativeBody!).toString()).toBe(body.replace('"model":"up/model"', '"model":"fast"'));
    expect(outcome).toMatchObject({ promptTokens: 8, completionTokens: 1, headers: { 'x-upstream-request-id': 'up-1' } });
    expect(outcome.body).toBeUndefined();
    expect(outcome.bytes).toBeUndefined();
  });

  it('of the Messages API too', async () => {
    const { ended, answer } = nativeExchange('messages');
    answer(200, JSON.stringify(messageObject('up/model', 'hi', { input: 4, output: 2 })));
    const outcome = await ended;
    expect(JSON.parse(Buffer.from(outcome.nativeBody!).toString())).toMatchObject({ type: 'message', model: 'fast' });
    expect(outcome).toMatchObject({ promptTokens: 4, completionTokens: 2 });
  });

  it('is refused as invalid when it is not the API\'s answer (a chat completion from a server that does not speak it)', async () => {
    const { ended, answer } = nativeExchange('responses');
    answer(200, JSON.stringify({ object: 'chat.completion', model: 'up/model', choices: [] }));
    await expect(ended).rejects.toMatchObject({ retryable: false, apiError: { code: 'upstream_error', message: 'The model server sent an invalid response.' } });
  });

  it("fails as the chat exchange does on an error status, with the message of Anthropic's error body", async () => {
    const limited = nativeExchange('messages');
    limited.answer(429, JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }), { 'retry-after': '7' });
    await expect(limited.ended).rejects.toMatchObject({ retryable: true, verdict: 'rate-limited', retryAfterMs: 7_000, apiError: { code: 'upstream_rate_limited' } });
    const refused = nativeExchange('messages');
    refused.answer(400, JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } }));
    await expect(refused.ended).rejects.toMatchObject({ retryable: false, apiError: { code: 'upstream_bad_request', message: 'The model server rejected the request: max_tokens: Field required' } });
    const overloaded = nativeExchange('messages');
    overloaded.answer(529, JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
    await expect(overloaded.ended).rejects.toMatchObject({ retryable: true, verdict: 'failed', apiError: { code: 'upstream_error' } });
  });
});
