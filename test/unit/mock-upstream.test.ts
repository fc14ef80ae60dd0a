// The mock upstream itself, driven with plain fetch and raw sockets.
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Behavior, type MockUpstream, startMockUpstream } from '../helpers/mock-upstream.ts';
import { chunksOf } from '../helpers/sse.ts';
import { waitUntilStill } from '../helpers/still.ts';

let mock: MockUpstream;
beforeEach(async () => {
  mock = await startMockUpstream({ apiKey: 'up-key' });
});
afterEach(() => mock.close());

function chatBody(behavior: Behavior | undefined, extra: Record<string, unknown> = {}): string {
  const content = behavior ? `mock:${JSON.stringify(behavior)}` : 'Hello';
  return JSON.stringify({ model: 'served-model', messages: [{ role: 'user', content }], ...extra });
}

function post(body: string, init: RequestInit = {}) {
  return fetch(`${mock.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer up-key', 'content-type': 'application/json' },
    body,
    ...init,
  });
}

describe('mock upstream', () => {
  it('answers a vLLM chat.completion and records the request', async () => {
    const response = await post(chatBody({ kind: 'json', text: 'one two three', promptTokens: 4 }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    const body = await response.json();
    expect(body).toMatchObject({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion',
      model: 'served-model',
      choices: [{ index: 0, message: { role: 'assistant', content: 'one two three', tool_calls: [], reasoning_content: null }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 },
      prompt_logprobs: null,
    });
    const [seen] = mock.requests;
    expect(seen).toMatchObject({ method: 'POST', path: '/v1/chat/completions', status: 200, finished: true, aborted: false });
    expect(seen?.headers.authorization).toBe('Bearer up-key');
    expect(seen?.body).toMatchObject({ model: 'served-model' });
  });

  it('streams the vLLM chunk sequence with a usage chunk under include_usage', async () => {
    const response = await post(chatBody({ kind: 'stream', chunks: 2 }, { stream: true, stream_options: { include_usage: true } }));
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const chunks = chunksOf(await response.text());
    expect(chunks.map((chunk) => chunk.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'w1 ' },
      { content: 'w2 ' },
      { content: '' },
      null,
    ]);
    expect(chunks[3].choices[0].finish_reason).toBe('stop');
    expect(chunks[4]).toMatchObject({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 } });
    expect(chunks.slice(0, 4).every((chunk) => !('usage' in chunk))).toBe(true);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(mock.requests[0]?.chunksWritten).toBe(6);
  });

  it('sends error statuses in the OpenAI shape, and vLLM’s own 401 for a wrong key', async () => {
    const limited = await post(chatBody({ kind: 'status', status: 429, retryAfter: '7', message: 'slow down' }));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(await limited.json()).toEqual({ error: { message: 'slow down', type: 'Too Many Requests', param: null, code: 429 } });

    const denied = await post(chatBody(undefined), { headers: { authorization: 'Bearer wrong' } });
    expect(denied.status).toBe(401);
    expect(await denied.json()).toEqual({ error: 'Unauthorized' });
  });

  it('notices a client that gives up on a hanging or slow response', async () => {
    const hanging = new AbortController();
    const first = post(chatBody({ kind: 'hang' }), { signal: hanging.signal });
    await mock.waitForRequests(1);
    hanging.abort();
    await expect(first).rejects.toThrow();
    await mock.waitForAbort(1);

    const slow = await post(chatBody({ kind: 'stream', chunks: 1000, paceMs: 5 }, { stream: true }));
    await mock.waitFor(() => (mock.requests[1]?.chunksWritten ?? 0) >= 3, '3 chunks');
    await slow.body?.cancel();
    const aborted = await mock.waitForAbort(2);
    expect(aborted.map((request) => request.behavior?.kind)).toEqual(['hang', 'stream']);
    expect(mock.requests[1]?.chunksWritten).toBeLessThan(100);
  });

  it('resets the connection when told to', async () => {
    await expect(post(chatBody({ kind: 'reset' }))).rejects.toThrow();
    expect(mock.requests[0]).toMatchObject({ aborted: false, status: undefined });
  });

  it('counts TCP connections', async () => {
    await Promise.all([1, 2, 3].map(() => post(chatBody({ kind: 'json', delayMs: 50 })).then((response) => response.text())));
    expect(mock.connections).toMatchObject({ opened: 3, maxOpen: 3 });
  });

  it('stops writing while the client does not read, and resumes when it does', async () => {
    const socket = connect(mock.port, '127.0.0.1');
    socket.pause();
    const body = chatBody({ kind: 'stream', chunks: 400, chunkBytes: 64 * 1024 }, { stream: true });
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: mock\r\nauthorization: Bearer up-key\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    // The first stalls are brief while the kernel's socket buffers fill; then the writes stop for good.
    const stalledAt = await waitUntilStill(() => mock.requests[0]?.chunksWritten ?? 0, 100);
    expect(mock.requests[0]?.waitingForDrain).toBe(true);
    expect(stalledAt).toBeLessThan(400);

    socket.resume();
    await mock.waitFor(() => mock.requests[0]?.finished === true, 'the stream to finish');
    expect(mock.requests[0]?.chunksWritten).toBe(403);
    socket.destroy();
  });
});
