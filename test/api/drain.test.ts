// Graceful shutdown: while draining, /readyz is 503 on connections still open, streams in flight
// run to [DONE], and shutdown resolves once they have.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { FAST_TEST_CONFIG, startGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';

function openSocket(port: number) {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => { received += chunk.toString(); });
  return {
    ready: new Promise((resolve) => socket.once('connect', resolve)),
    get: (path: string) => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`),
    received: () => received,
    close: () => socket.destroy(),
  };
}

describe('drain', () => {
  it('reports not ready, finishes the stream, then stops', async () => {
    const gateway = await startGateway({
      ...FAST_TEST_CONFIG,
      models: { fast: { local: { tokensPerSecond: 50 } } },
    });
    const { key } = await gateway.createKey();
    const probe = openSocket(gateway.port);
    await probe.ready;
    const response = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: chatBody({ stream: true, max_tokens: 25 }),
    });
    const body = response.text();
    const stopped = gateway.app.shutdown();
    expect(gateway.app.lifecycle.phase).toBe('draining');
    probe.get('/readyz');
    await expect.poll(probe.received).toMatch(/^HTTP\/1\.1 503/);
    expect(probe.received()).toContain('"code":"not_ready"');
    expect((await body).endsWith('data: [DONE]\n\n')).toBe(true);
    expect(await stopped).toBe(true);
    probe.close();
  });
});
