// A client that stops reading a stream must stall the upstream (bounded buffering in between),
// and everything must arrive intact once it reads again.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { waitUntilStill } from '../helpers/still.ts';

const CHUNKS = 600;
const CHUNK_BYTES = 64 * 1024;

let mock: MockUpstream;
let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  mock = await startMockUpstream();
  gateway = await startGateway({ engine: { threads: 1 }, models: { fast: { upstreams: [{ baseUrl: mock.baseUrl, model: 'mock-model' }] } } });
  ({ key } = await gateway.createKey());
});
afterAll(async () => {
  await gateway.close();
  await mock.close();
});

describe('backpressure', () => {
  it('pauses the upstream while the client does not read, then delivers everything', async () => {
    const body = chatBody({ stream: true, messages: [{ role: 'user', content: `mock:${JSON.stringify({ kind: 'stream', chunks: CHUNKS, chunkBytes: CHUNK_BYTES })}` }] });
    const socket = connect(gateway.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.pause();
    socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    await mock.waitForRequests(1);
    const stalledAt = await waitUntilStill(() => mock.requests[0]!.chunksWritten, 500);
    expect(stalledAt).toBeGreaterThan(0);
    expect(stalledAt).toBeLessThan(CHUNKS / 2);
    expect(mock.requests[0]!.waitingForDrain).toBe(true);

    let received = 0;
    let tail = '';
    const done = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`stream did not finish: ${received} bytes`)), 20_000);
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
        tail = (tail + chunk.toString('latin1')).slice(-64);
        if (tail.includes('data: [DONE]')) { clearTimeout(timer); resolve(); }
      });
    });
    socket.resume();
    await done;
    socket.destroy();
    expect(mock.requests[0]!.finished).toBe(true);
    expect(received).toBeGreaterThan(CHUNKS * CHUNK_BYTES);
  });

  it('delivers every event intact and in order when many arrive per read while the client lags', async () => {
    // Small events, sent as fast as the socket takes them: Munja reads many at a time and joins
    // them into one write, while the client's backlog sits in uWS's buffer.
    const count = 3_000;
    const body = chatBody({ stream: true, messages: [{ role: 'user', content: `mock:${JSON.stringify({ kind: 'stream', chunks: count, chunkBytes: 1_000 })}` }] });
    const response = await fetch(`http://127.0.0.1:${gateway.port}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(200);
    // Not reading yet: the backlog builds until the upstream has sent everything or is held back.
    await mock.waitFor(() => mock.requests.at(-1)!.finished || mock.requests.at(-1)!.waitingForDrain, 'a backlog');
    const events = (await response.text()).split('\n\n').filter((event) => event.startsWith('data: {'));
    const chunks = events.map((event) => JSON.parse(event.slice('data: '.length)) as { model: string; choices: { delta: { content?: string } }[] });
    const contents = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').filter((content) => content !== '');
    expect(contents).toHaveLength(count);
    expect(contents.findIndex((content, index) => content !== `w${index + 1} `.padEnd(1_000, 'x'))).toBe(-1);
    expect(chunks.every((chunk) => chunk.model === 'fast')).toBe(true);
  });
});
