// A client that stops reading a stream must stall the upstream (bounded buffering in between),
// and everything must arrive intact once it reads again.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

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

async function settled(read: () => number, quietMs = 500, timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = read();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    const now = read();
    if (now === last || Date.now() > deadline) return now;
    last = now;
  }
}

describe('backpressure', () => {
  it('pauses the upstream while the client does not read, then delivers everything', async () => {
    const body = chatBody({ stream: true, messages: [{ role: 'user', content: `mock:${JSON.stringify({ kind: 'stream', chunks: CHUNKS, chunkBytes: CHUNK_BYTES })}` }] });
    const socket = connect(gateway.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.pause();
    socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    await mock.waitForRequests(1);
    const stalledAt = await settled(() => mock.requests[0]!.chunksWritten);
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
});
