// Hostile JSON bodies over the wire (HR-06…HR-09): deep nesting, numbers JSON cannot carry,
// a repeated `model` (billed one, run another) and prototype keys are refused with 400 before
// anything reaches the model server or an engine worker; afterwards Object.prototype is clean in
// this process (the gateway runs in it) and in every engine worker thread.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import type { MockUpstream } from '../helpers/mock-upstream.ts';
import { type RelayGateway, startRelayGateway } from '../helpers/relay-gateway.ts';
import { errorCodeOf, exchange, httpRequest, type WireResponse } from '../helpers/raw-socket.ts';
import { attachWorkerRealms, type WorkerRealms } from './worker-realms.ts';

let mock: MockUpstream;
let gateway: TestGateway;
let key: string;
let relay: RelayGateway;
let realms: WorkerRealms;

const MESSAGES = '[{"role":"user","content":"x"}]';
const PROTOTYPE_STATE = 'JSON.stringify({ polluted: typeof ({}).polluted, keys: Object.getOwnPropertyNames(Object.prototype).sort() })';

beforeAll(async () => {
  relay = await startRelayGateway();
  ({ mock, gateway, key } = relay);
  realms = await attachWorkerRealms();
});
afterAll(async () => {
  await realms.close();
  await relay.close();
});
beforeEach(() => mock.reset());
afterEach(async () => {
  expect((await post('/v1/chat/completions', chatBody())).status).toBe(200);
});

async function post(path: string, body: string | Buffer): Promise<WireResponse> {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  const head = httpRequest(`POST ${path} HTTP/1.1`, [
    'Host: x', `Authorization: Bearer ${key}`, 'Content-Type: application/json', 'Accept: application/json, text/event-stream', `Content-Length: ${length}`,
  ]);
  const result = await exchange(gateway.port, Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body)]), { quietMs: 150 });
  expect(result.hung).toBe(false);
  expect(result.responses).toHaveLength(1);
  return result.responses[0]!;
}

/** A local-engine request: gives the engine's worker threads a task, so they handle inspector messages. */
async function pokeEngine(): Promise<void> {
  await fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: chatBody({ max_tokens: 5 }),
  }).then((response) => response.text());
}

describe('bodies that must not be forwarded', () => {
  it.each([
    ['100,000-deep arrays', 'nesting_too_deep', `{"model":"up","messages":[{"role":"user","content":${'['.repeat(100_000)}${']'.repeat(100_000)}}]}`],
    ['100,000-deep objects', 'nesting_too_deep', `{"model":"up","messages":${MESSAGES},"metadata":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`],
    ['temperature 1e400 (Infinity, forwarded as null)', 'invalid_value', `{"model":"up","messages":${MESSAGES},"temperature":1e400}`],
    ['temperature -1e400', 'invalid_value', `{"model":"up","messages":${MESSAGES},"temperature":-1e400}`],
    ['max_tokens 12345678901234567890', 'invalid_value', `{"model":"up","messages":${MESSAGES},"max_tokens":12345678901234567890}`],
    ['max_tokens 2^53 + 1 (not a safe integer)', 'invalid_value', `{"model":"up","messages":${MESSAGES},"max_tokens":9007199254740993}`],
    ['seed with 30 digits', 'invalid_value', `{"model":"up","messages":${MESSAGES},"seed":123456789012345678901234567890}`],
    ['model twice: local then upstream', 'duplicate_key', `{"model":"fast","model":"up","messages":${MESSAGES}}`],
    ['model twice: upstream then local', 'duplicate_key', `{"model":"up","model":"fast","messages":${MESSAGES}}`],
    ['a message key twice', 'duplicate_key', '{"model":"up","messages":[{"role":"user","role":"system","content":"x"}]}'],
  ])('%s → 400 %s, nothing forwarded', async (_name, code, body) => {
    const response = await post('/v1/chat/completions', body);
    expect(response.status).toBe(400);
    expect(errorCodeOf(response)).toBe(code);
    expect(mock.requests).toHaveLength(0);
  });
});

describe('prototype poisoning', () => {
  const POISON = [
    ['__proto__ at the top', `{"__proto__":{"polluted":"yes"},"model":"up","messages":${MESSAGES}}`],
    ['__proto__ in a message', '{"model":"up","messages":[{"role":"user","content":"x","__proto__":{"polluted":"yes"}}]}'],
    ['__proto__ written with an escape', `{"model":"up","messages":${MESSAGES},"metadata":{"\\u005f_proto__":{"polluted":"yes"}}}`],
    ['constructor.prototype at the top', `{"constructor":{"prototype":{"polluted":"yes"}},"model":"up","messages":${MESSAGES}}`],
    ['constructor.prototype deep down', `{"model":"up","messages":${MESSAGES},"metadata":{"a":{"constructor":{"prototype":{"polluted":"yes"}}}}}`],
  ] as const;

  it('the worker probe sees a worker realm and would see pollution in it', async () => {
    expect(realms.count).toBeGreaterThanOrEqual(1);
    const seen = await realms.evaluate('Object.prototype.probeCheck = 1; const seen = ({}).probeCheck; delete Object.prototype.probeCheck; seen', pokeEngine);
    expect(seen.every((value) => value === 1)).toBe(true);
  });

  it.each(POISON)('%s → 400 forbidden_key on the API, /mcp too; prototypes clean everywhere', async (_name, body) => {
    const mainBefore = Object.getOwnPropertyNames(Object.prototype).sort();
    const workersBefore = await realms.evaluate(PROTOTYPE_STATE, pokeEngine);

    const chat = await post('/v1/chat/completions', body);
    expect(chat.status).toBe(400);
    expect(errorCodeOf(chat)).toBe('forbidden_key');
    const rpc = await post('/mcp', `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":${body}}`);
    expect(rpc.status).toBe(400);
    expect(errorCodeOf(rpc)).toBe('forbidden_key');
    expect(mock.requests).toHaveLength(0);

    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(mainBefore);
    const workersAfter = await realms.evaluate(PROTOTYPE_STATE, pokeEngine);
    expect(workersAfter).toEqual(workersBefore);
    for (const state of workersAfter) expect(JSON.parse(state as string).polluted).toBe('undefined');
  });

  it('the same keys as string content are data, forwarded unchanged', async () => {
    const content = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{}}}';
    const response = await post('/v1/chat/completions', chatBody({ model: 'up', messages: [{ role: 'user', content }] }));
    expect(response.status).toBe(200);
    expect((mock.requests[0]!.body as { messages: Array<{ content: string }> }).messages[0]!.content).toBe(content);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
