// A client that stops reading a long stream (HR-18): the upstream is paused, so what the gateway
// holds stays bounded; after server.streamWriteStallMs without progress the client's connection
// is closed and the upstream request aborted. A client that keeps reading is never cut off.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { openSocket } from '../helpers/raw-socket.ts';

const CHUNKS = 1_000;
const CHUNK_BYTES = 64 * 1024; // 64 MiB in all
const STALL_MS = 3_000;

let mock: MockUpstream;
let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  mock = await startMockUpstream();
  gateway = await startGateway({
    engine: { threads: 1 },
    server: { streamWriteStallMs: STALL_MS },
    models: { fast: { upstreams: [{ baseUrl: mock.baseUrl, model: 'mock-model' }] } },
  });
  ({ key } = await gateway.createKey());
});
afterAll(async () => {
  await gateway.close();
  await mock.close();
});
beforeEach(() => mock.reset());

function streamRequest(): string {
  const body = chatBody({ stream: true, messages: [{ role: 'user', content: `mock:${JSON.stringify({ kind: 'stream', chunks: CHUNKS, chunkBytes: CHUNK_BYTES })}` }] });
  return `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

describe('slow reader', () => {
  it('stalls the upstream with bounded buffering, then closes the stream and aborts the upstream', async () => {
    const socket = await openSocket(gateway.port);
    socket.pause();
    socket.write(streamRequest());
    await mock.waitForRequests(1);
    // Blocked on the gateway's backpressure well before the end, then cut off: the mock sees its
    // response closed by the gateway before it could finish.
    await mock.waitFor(() => mock.requests[0]!.waitingForDrain || mock.requests[0]!.aborted, 'the mock to block on a full socket');
    await mock.waitForAbort(1, STALL_MS * 5);
    const seen = mock.requests[0]!;
    expect(seen.finished).toBe(false);
    expect(seen.bytesWritten).toBeLessThan((CHUNKS * CHUNK_BYTES) / 2);

    // The client's side: what was buffered arrives, then the connection ends without [DONE].
    let tail = '';
    let received = 0;
    const ended = new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
        tail = (tail + chunk.toString('latin1')).slice(-64);
      });
      socket.once('close', () => resolve());
    });
    socket.resume();
    await ended;
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(CHUNKS * CHUNK_BYTES);
    expect(tail).not.toContain('data: [DONE]');

    // Still serving.
    mock.reset();
    const after = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: chatBody(),
    });
    expect(after.status).toBe(200);
  });

  it('a client that reads the whole stream is not cut off', async () => {
    const socket = await openSocket(gateway.port);
    let received = 0;
    let tail = '';
    const done = new Promise<boolean>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
        tail = (tail + chunk.toString('latin1')).slice(-64);
        if (tail.includes('data: [DONE]')) resolve(true);
      });
      socket.once('close', () => resolve(false));
    });
    socket.write(streamRequest());
    expect(await done).toBe(true);
    socket.destroy();
    expect(received).toBeGreaterThan(CHUNKS * CHUNK_BYTES);
    expect(mock.requests[0]!.finished).toBe(true);
    expect(mock.totals.aborted).toBe(0);
  });
});
