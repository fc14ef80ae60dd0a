// Usage records what was served: a request that failed after admission (the model server refused
// it, answered 500 or 429, could not be reached, or broke before the first byte) adds nothing to
// usage, so a client that retries a 5xx as it should does not pay twice; a served request adds
// exactly one request and its tokens. Default settings.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import { contentEvent, FINISH_EVENT, type ScriptedUpstream, startScriptedUpstream, stream } from '../helpers/scripted-upstream.ts';

const COMPLETION = JSON.stringify({
  id: 'c1', object: 'chat.completion', created: 1, model: 'up-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hi there' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 11, completion_tokens: 2, total_tokens: 13 },
});

let upstream: ScriptedUpstream;
/** Serves the last request, on an upstream of its own (the failures above open the first one's breaker). */
let marker: ScriptedUpstream;
let gateway: TestGateway;
let key: string;
let keyId: string;

beforeEach(async () => {
  upstream = await startScriptedUpstream();
  marker = await startScriptedUpstream();
  gateway = await startGateway({
    models: {
      fast: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up-model' }] },
      // Nothing listens on port 9 of loopback (discard): the connection is refused.
      marker: { upstreams: [{ baseUrl: marker.baseUrl, model: 'up-model' }] },
      gone: { upstreams: [{ baseUrl: 'http://127.0.0.1:9/v1', model: 'up-model' }] },
    },
  });
  ({ key, id: keyId } = await gateway.createKey());
});
afterEach(async () => {
  await gateway.close();
  await upstream.close();
  await marker.close();
});

function post(body: Record<string, unknown>) {
  return fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: chatBody(body),
  });
}

const served = (response: { writeHead(status: number, headers: Record<string, string>): void; end(body: string): void }) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(COMPLETION);
};

/** The key's usage today over every model. */
async function usageToday() {
  const today = new Date().toISOString().slice(0, 10);
  const rows = await gateway.app.store.usageByDay([keyId], today, today);
  if (rows.length === 0) return undefined;
  const sum = (field: 'requests' | 'promptTokens' | 'completionTokens') => rows.reduce((total, row) => total + row[field], 0);
  return { requests: sum('requests'), promptTokens: sum('promptTokens'), completionTokens: sum('completionTokens'), models: rows.map((row) => [row.model, row.requests]) };
}

it('bills the requests served and none of those that failed after admission', async () => {
  upstream.answer = served;
  for (let i = 0; i < 3; i++) expect((await post({ model: 'fast' })).status).toBe(200);
  await vi.waitFor(async () => expect((await usageToday())?.requests).toBe(3));

  const failures: Array<[number, Record<string, unknown>]> = [];
  upstream.answer = (response) => {
    response.writeHead(500, { 'content-type': 'application/json' });
    response.end('{"error":{"message":"boom"}}');
  };
  for (let i = 0; i < 2; i++) failures.push([(await post({ model: 'fast' })).status, { kind: 'upstream 500' }]);
  for (let i = 0; i < 2; i++) failures.push([(await post({ model: 'fast', stream: true })).status, { kind: 'upstream 500, streamed' }]);
  upstream.answer = (response) => {
    response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
    response.end('{"error":{"message":"slow down"}}');
  };
  for (let i = 0; i < 2; i++) failures.push([(await post({ model: 'fast' })).status, { kind: 'upstream 429' }]);
  for (let i = 0; i < 2; i++) failures.push([(await post({ model: 'gone' })).status, { kind: 'refused connection' }]);
  for (const [status, kind] of failures) expect(status, JSON.stringify(kind)).toBeGreaterThanOrEqual(429);

  // One more served request, streamed: once it is in the store, anything recorded before it is too.
  marker.answer = stream(contentEvent('Hi'), contentEvent(' there'), FINISH_EVENT,
    'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"up-model","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":2,"total_tokens":13}}\n\n', 'data: [DONE]\n\n');
  expect((await post({ model: 'marker', stream: true })).status).toBe(200);
  await vi.waitFor(async () => expect((await usageToday())?.requests).toBeGreaterThanOrEqual(4));
  const usage = await usageToday();
  expect(usage?.requests).toBe(4);
  expect(usage?.promptTokens).toBe(4 * 11);
  expect(usage?.completionTokens).toBe(4 * 2);
  expect(usage?.models).toEqual([['fast', 3], ['marker', 1]]);
});
