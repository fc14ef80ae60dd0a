// A request whose client leaves has its engine task stopped, on the default settings: `pro` (the
// largest context) with schemas that take the engine seconds to compile.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { costlyTools } from '../helpers/costly-schemas.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { httpRequest, openSocket } from '../helpers/raw-socket.ts';

let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  gateway = await startGateway({}, { env: { MUNJA_METRICS_PORT: '0' } });
  ({ key } = await gateway.createKey());
});
afterAll(() => gateway.close());

function costlyRequest(stream: boolean): Record<string, unknown> {
  const tools = costlyTools(6).map((tool) => ({ type: 'function', function: tool }));
  return { model: 'pro', messages: [{ role: 'user', content: 'Call them all.' }], tools, tool_choice: 'required', stream };
}

async function engineTasks(): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${gateway.app.metricsPort}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith('munja_engine_tasks '));
  return Number(line?.slice('munja_engine_tasks '.length));
}

describe('a client leaving', () => {
  it('stops the engine task of a streaming request whose client left', async () => {
    const socket = await openSocket(gateway.port);
    const body = JSON.stringify(costlyRequest(true));
    socket.write(httpRequest('POST /v1/chat/completions HTTP/1.1', ['Host: x', `Authorization: Bearer ${key}`, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`], body));
    await vi.waitFor(async () => expect(await engineTasks()).toBe(1));
    socket.destroy();
    // Long before its schemas would have compiled (seconds), the task is over.
    await vi.waitFor(async () => expect(await engineTasks()).toBe(0));
  });
});
