// A refusal given while the body is still arriving (here: no key) goes out at once, chunked; its
// end waits while the rest of the body is read and discarded, so that the connection closes
// without a reset. A client that goes quiet gets the end after a second; sending more after that
// is harmless.
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { httpRequest, openSocket, parseResponses } from '../helpers/raw-socket.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(() => gateway.close());

const DECLARED = 1024 * 1024;
const head = httpRequest('POST /v1/chat/completions HTTP/1.1', ['Host: x', 'Content-Type: application/json', `Content-Length: ${DECLARED}`]);

function collect(socket: Socket): { text: () => Buffer; closed: Promise<void>; errors: string[] } {
  const chunks: Buffer[] = [];
  const errors: string[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', (error: NodeJS.ErrnoException) => errors.push(error.code ?? error.message));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return { text: () => Buffer.concat(chunks), closed, errors };
}

describe('lingering close after a refusal', () => {
  it('a client sending all of a 32 MiB body gets the whole 413 and no reset', async () => {
    const { key } = await gateway.createKey();
    const size = 32 * 1024 * 1024;
    const socket = await openSocket(gateway.port);
    const received = collect(socket);
    const request = httpRequest('POST /v1/chat/completions HTTP/1.1', ['Host: x', `Authorization: Bearer ${key}`, 'Content-Type: application/json', `Content-Length: ${size}`]);
    socket.write(Buffer.concat([Buffer.from(request, 'latin1'), Buffer.alloc(size, 0x20)]));
    await expect.poll(() => parseResponses(received.text()).responses.length === 1 || received.errors.length > 0).toBe(true);
    expect(received.errors).toEqual([]);
    const [response] = parseResponses(received.text()).responses;
    expect(response?.status).toBe(413);
    expect(response?.headers.connection).toBe('close');
    socket.end();
    await received.closed;
    expect(received.errors).toEqual([]);
  });

  it('the 401 comes at once; its end comes when the body has all arrived, then the server closes', async () => {
    const socket = await openSocket(gateway.port);
    const received = collect(socket);
    socket.write(head + ' '.repeat(10_000));
    await expect.poll(() => received.text().toString('latin1')).toContain('401 Unauthorized');
    expect(received.text().toString('latin1')).toMatch(/^HTTP\/1\.1 401 /);
    expect(parseResponses(received.text()).responses).toHaveLength(0); // not ended yet: the body is still coming
    socket.write(' '.repeat(DECLARED - 10_000));
    await expect.poll(() => parseResponses(received.text()).responses).toHaveLength(1);
    const [response] = parseResponses(received.text()).responses;
    expect(response!.status).toBe(401);
    expect(response!.headers.connection).toBe('close');
    expect(JSON.parse(response!.body.toString()).error.code).toBe('invalid_api_key');
    socket.end();
    await received.closed;
  });

  it('a client that goes quiet gets the end after a while; sending the rest later does no harm', async () => {
    const socket = await openSocket(gateway.port);
    const received = collect(socket);
    socket.write(head + ' '.repeat(10_000));
    await expect.poll(() => parseResponses(received.text()).responses).toHaveLength(1);
    expect(parseResponses(received.text()).responses[0]!.status).toBe(401);
    socket.end(' '.repeat(DECLARED - 10_000));
    await received.closed; // the server has read the rest (or had closed already)
    expect((await fetch(`${gateway.origin}/health`)).status).toBe(200);
  });
});
