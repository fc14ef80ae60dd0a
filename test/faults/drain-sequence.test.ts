// The drain sequence (reliability.md HR-47, HR-48): /readyz turns 503 at once while the port keeps
// serving for the propagation window, every response then asks the client to reconnect
// (Connection: close); after the window the port closes, what is in flight finishes, and what is
// still running at the deadline ends with `shutting_down`. A second signal stops at once.
import { connect } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FAST_TEST_CONFIG, startGateway } from '../helpers/gateway.ts';
import { chatBody, rawRequest } from '../helpers/http.ts';
import { killServeProcesses, startServeProcess } from '../helpers/serve-process.ts';
import { parseSse } from '../helpers/sse.ts';

const dir = mkdtempSync(join(tmpdir(), 'munja-drain-'));
afterEach(killServeProcesses);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A keep-alive connection that collects everything the server sends, and whether it closed. */
function keepAlive(port: number) {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  let closed = false;
  socket.on('data', (chunk) => { received += chunk.toString(); });
  socket.on('close', () => { closed = true; });
  socket.on('error', () => {});
  return {
    connected: new Promise((resolve) => socket.once('connect', resolve)),
    get: (path: string) => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`),
    received: () => received,
    closed: () => closed,
    destroy: () => socket.destroy(),
  };
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(false); });
    socket.once('error', () => resolve(true));
  });
}

const post = (key: string, body: string) =>
  `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

describe('drain', () => {
  it('goes on serving in the window, asking every client to reconnect, then closes the port', async () => {
    const gateway = await startGateway();
    const { key } = await gateway.createKey();
    const client = keepAlive(gateway.port);
    await client.connected;
    client.get('/health');
    await expect.poll(client.received).toContain('{"status":"ok"}');
    expect(client.received().toLowerCase()).not.toContain('connection: close');

    gateway.app.lifecycle.beginDrain(); // what a stop signal does first
    client.get('/readyz');
    await expect.poll(client.closed).toBe(true);
    const second = client.received().slice(client.received().indexOf('HTTP/1.1', 10));
    expect(second).toMatch(/^HTTP\/1\.1 503/);
    expect(second).toContain('"code":"not_ready"');
    expect(second.toLowerCase()).toContain('connection: close');

    const json = await rawRequest(gateway.port, post(key, chatBody()));
    expect(json.status).toBe(200);
    expect(json.headers.connection).toBe('close');
    const stream = await rawRequest(gateway.port, post(key, chatBody({ stream: true })));
    expect(stream.status).toBe(200);
    expect(stream.headers.connection).toBe('close');
    expect(stream.body).toContain('data: [DONE]');

    expect(await gateway.app.shutdown()).toBe(true);
    expect(await refused(gateway.port)).toBe(true);
  });

  it('ends a stream still open at the deadline with shutting_down, and answers a request in flight 503', async () => {
    const gateway = await startGateway({
      ...FAST_TEST_CONFIG,
      server: { shutdownGraceMs: 200 },
      models: { slow: { local: { timeToFirstTokenMs: 0, tokensPerSecond: 10 } } },
    });
    const { key } = await gateway.createKey();
    const call = (stream: boolean) => fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: chatBody({ model: 'slow', stream, max_tokens: 500 }), // 50 s at 10 tokens/s
    });
    const streaming = await call(true);
    const reader = streaming.body!.getReader();
    let text = new TextDecoder().decode((await reader.read()).value);
    const json = call(false);
    await expect.poll(() => gateway.app.lifecycle.inFlight).toBe(2);

    expect(await gateway.app.shutdown()).toBe(false);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += new TextDecoder().decode(chunk.value);
    const events = parseSse(text);
    expect(events.at(-1)!.data).toBe('[DONE]');
    expect(JSON.parse(events.at(-2)!.data).error.code).toBe('shutting_down');
    expect(JSON.parse(events[0]!.data).object).toBe('chat.completion.chunk');
    const answer = await json;
    expect(answer.status).toBe(503);
    expect((await answer.json()).error.code).toBe('shutting_down');
  });

  it('on SIGTERM: /readyz 503 and new connections still served during server.drainDelayMs, a stream in flight finishes, exit 0', async () => {
    const config = join(dir, 'window.json');
    writeFileSync(config, JSON.stringify({
      server: { drainDelayMs: 3_000 },
      models: { fast: { local: { timeToFirstTokenMs: 0, tokensPerSecond: 40 } } },
    }));
    const server = await startServeProcess({ MUNJA_DATA: join(dir, 'window'), MUNJA_CONFIG: config });
    const key = server.firstKey()!;
    const stream = await fetch(`http://127.0.0.1:${server.port}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: chatBody({ stream: true, max_tokens: 60 }),
    });
    const streamed = stream.text();
    server.child.kill('SIGTERM');
    await expect.poll(server.stdout).toContain('"msg":"draining"');
    const readyz = await rawRequest(server.port, 'GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(readyz.status).toBe(503);
    const late = await rawRequest(server.port, post(key, chatBody()));
    expect(late.status).toBe(200);
    expect(late.headers.connection).toBe('close');
    expect(await server.exited).toBe(0);
    expect(stream.status).toBe(200);
    expect((await streamed).endsWith('data: [DONE]\n\n')).toBe(true);
    expect(server.stdout()).toMatch(/"drained":true[^\n]*"msg":"stopped"/);
  });

  it('exits at once, non-zero, on a second signal', async () => {
    const config = join(dir, 'second.json');
    writeFileSync(config, JSON.stringify({ server: { drainDelayMs: 60_000 } }));
    const server = await startServeProcess({ MUNJA_DATA: join(dir, 'second'), MUNJA_CONFIG: config });
    server.child.kill('SIGTERM');
    await expect.poll(server.stdout).toContain('"msg":"draining"');
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(1);
    expect(server.stdout()).not.toContain('"msg":"stopped"');
  });
});
