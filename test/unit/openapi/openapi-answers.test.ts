// The checker the API lane runs on every answer: it accepts what the document describes and finds
// each kind of mismatch (status, content type, body, one stream event).
import { describe, expect, it } from 'vitest';
import { checkAnswer } from '../../helpers/openapi-answers.ts';

const error = '{"error":{"message":"No such model.","type":"invalid_request_error","param":"model","code":"model_not_found"}}';
const chunk = (object: string) => `data: {"id":"c","object":"${object}","created":1,"model":"fast","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n`;

describe('checkAnswer', () => {
  it('accepts answers the document describes', () => {
    expect(checkAnswer({ method: 'GET', path: '/health', status: 200, contentType: 'application/json', body: '{"status":"ok"}' })).toEqual({ kind: 'checked' });
    expect(checkAnswer({ method: 'GET', path: '/v1/models/nope', status: 404, contentType: 'application/json; charset=utf-8', body: error })).toEqual({ kind: 'checked' });
    expect(checkAnswer({ method: 'POST', path: '/v1/chat/completions', status: 200, contentType: 'text/event-stream', body: `${chunk('chat.completion.chunk')}data: [DONE]\n\n` })).toEqual({ kind: 'checked' });
  });

  it('counts a request no operation describes as undocumented', () => {
    expect(checkAnswer({ method: 'GET', path: '/v1/v1/models', status: 404, contentType: 'application/json', body: error }).kind).toBe('undocumented');
    expect(checkAnswer({ method: 'PUT', path: '/v1/models', status: 405, contentType: 'application/json', body: error }).kind).toBe('undocumented');
  });

  it('finds an undocumented status, content type, body or stream event', () => {
    const cases = [
      { method: 'GET', path: '/v1/models/fast', status: 418, contentType: 'application/json', body: error },
      { method: 'GET', path: '/health', status: 200, contentType: 'text/plain', body: 'ok' },
      { method: 'GET', path: '/health', status: 200, contentType: 'application/json', body: '{"status":"fine"}' },
      { method: 'GET', path: '/v1/models/nope', status: 404, contentType: 'application/json', body: '{"error":{"message":"m","type":"invalid_request_error","code":"no_such_code"}}' },
      { method: 'POST', path: '/v1/chat/completions', status: 200, contentType: 'text/event-stream', body: `${chunk('chat.completion')}data: [DONE]\n\n` },
      { method: 'POST', path: '/v1/messages', status: 200, contentType: 'text/event-stream', body: 'event: message_stop\ndata: {"type":"ping"}\n\n' },
      { method: 'POST', path: '/v1/admin/keys/key_1/rotate', status: 200, contentType: 'application/json', body: '{"object":"api_key"}' },
    ];
    for (const answer of cases) expect(checkAnswer(answer).kind, `${answer.path} ${answer.status} ${answer.body}`).toBe('mismatch');
  });

  it('checks the documented headers when it is given them', () => {
    const completion = '{"id":"c","object":"chat.completion","created":1,"model":"fast","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}';
    const limits: Record<string, string> = {
      'x-request-id': 'req_1', 'x-ratelimit-limit-requests': '60', 'x-ratelimit-remaining-requests': '59', 'x-ratelimit-reset-requests': '1s',
      'x-ratelimit-limit-tokens': '1000', 'x-ratelimit-remaining-tokens': '990', 'x-ratelimit-reset-tokens': '250ms',
    };
    const answer = (headers: Record<string, string>) => ({
      method: 'POST', path: '/v1/chat/completions', status: 200, contentType: 'application/json', body: completion, header: (name: string) => headers[name] ?? null,
    });
    expect(checkAnswer(answer(limits))).toEqual({ kind: 'checked' });
    expect(checkAnswer(answer({ ...limits, 'x-ratelimit-remaining-tokens': 'lots' })).kind).toBe('mismatch');
    const { 'x-request-id': _id, ...withoutId } = limits;
    expect(checkAnswer(answer(withoutId)).kind).toBe('mismatch');
  });
});
