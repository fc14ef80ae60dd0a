// /mcp at the HTTP level: the Streamable HTTP transport rules for a stateless server, auth and
// Origin before the transport, CORS for allowed origins, large replies and client disconnects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type MockUpstream, startMockUpstream } from '../helpers/mock-upstream.ts';

const ALLOWED_ORIGIN = 'http://localhost:6274';
const ACCEPT = 'application/json, text/event-stream';

let gateway: TestGateway;
let mock: MockUpstream;
let key: string;

beforeAll(async () => {
  mock = await startMockUpstream();
  gateway = await startGateway({
    ...FAST_TEST_CONFIG,
    server: { maxBodyBytes: 64 * 1024, mcpAllowedOrigins: [ALLOWED_ORIGIN] },
    models: { ...FAST_TEST_CONFIG.models, relay: { upstreams: [{ baseUrl: mock.baseUrl }] } },
  });
  ({ key } = await gateway.createKey());
});
afterAll(async () => {
  await gateway.close();
  await mock.close();
});

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const LIST_TOOLS = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

function callTool(args: Record<string, unknown>) {
  return { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'chat_completion', arguments: args } };
}

interface Sent {
  status: number;
  headers: Headers;
  text: string;
}

async function mcp(body: unknown, headers: Record<string, string> = {}, method = 'POST', signal?: AbortSignal): Promise<Sent> {
  const response = await fetch(`${gateway.origin}/mcp`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    signal,
  });
  const text = await response.text();
  expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  return { status: response.status, headers: response.headers, text };
}

/** The JSON-RPC messages of an SSE response. */
function events(sent: Sent): any[] {
  expect(sent.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return sent.text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)));
}

function apiError(sent: Sent, status: number, code: string): void {
  expect(sent.status).toBe(status);
  expect(JSON.parse(sent.text).error.code).toBe(code);
}

describe('the Streamable HTTP transport, stateless', () => {
  it('answers initialize on an SSE response, without a session id', async () => {
    const sent = await mcp(INITIALIZE);
    expect(sent.status).toBe(200);
    expect(sent.headers.get('mcp-session-id')).toBeNull();
    const [message] = events(sent);
    expect(message.result).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: { name: 'munja' }, capabilities: { tools: {} } });
  });

  it('negotiates the protocol version: an unknown one gets the latest the SDK supports', async () => {
    const [message] = events(await mcp({ ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: '2099-01-01' } }));
    expect(message.result.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(message.result.protocolVersion).not.toBe('2099-01-01');
  });

  it('serves any request without a prior initialize (any instance can answer)', async () => {
    const [message] = events(await mcp(LIST_TOOLS, { 'mcp-protocol-version': '2025-06-18' }));
    expect(message.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['chat_completion', 'list_models']);
  });

  it('refuses an unsupported MCP-Protocol-Version with 400', async () => {
    const sent = await mcp(LIST_TOOLS, { 'mcp-protocol-version': '1999-01-01' });
    expect(sent.status).toBe(400);
    expect(JSON.parse(sent.text).error.message).toMatch(/Unsupported protocol version/);
  });

  it.each([['missing', ''], ['JSON only', 'application/json'], ['SSE only', 'text/event-stream']])('refuses an Accept header that is %s with 406', async (_name, accept) => {
    const sent = await mcp(LIST_TOOLS, { accept });
    expect(sent.status).toBe(406);
    expect(JSON.parse(sent.text)).toMatchObject({ jsonrpc: '2.0', error: { message: expect.stringMatching(/Not Acceptable/) } });
  });

  it('accepts a notification with 202 and no body', async () => {
    const sent = await mcp({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(sent.status).toBe(202);
    expect(sent.text).toBe('');
  });

  it.each(['GET', 'DELETE'])('answers %s with 405: no standalone SSE stream and no session to end', async (method) => {
    const sent = await mcp(undefined, { accept: 'text/event-stream' }, method);
    expect(sent.status).toBe(405);
    expect(sent.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('refuses a body that is not JSON, or too large, in the API error shape', async () => {
    apiError(await mcp('{"jsonrpc":'), 400, 'invalid_json');
    apiError(await mcp(LIST_TOOLS, { 'content-type': 'text/plain' }), 400, 'invalid_content_type');
    apiError(await mcp({ ...LIST_TOOLS, params: { pad: 'x'.repeat(70 * 1024) } }), 413, 'request_too_large');
  });
});

describe('auth and Origin before the transport', () => {
  it('no key or a bad key → 401 with WWW-Authenticate: Bearer', async () => {
    for (const authorization of ['', 'Bearer sk_munja_nope']) {
      const sent = await mcp(INITIALIZE, { authorization });
      apiError(sent, 401, 'invalid_api_key');
      expect(sent.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    }
  });

  it('a suspended account → 403', async () => {
    const suspended = await gateway.createKey({ accountEmail: 'mcp-suspended@example.com' });
    await gateway.app.store.setAccountStatus('mcp-suspended@example.com', 'suspended');
    apiError(await mcp(INITIALIZE, { authorization: `Bearer ${suspended.key}` }), 403, 'account_suspended');
  });

  it('a browser origin not on the allow-list → 403, with or without a key', async () => {
    apiError(await mcp(INITIALIZE, { origin: 'https://evil.example' }), 403, 'forbidden_origin');
    apiError(await mcp(INITIALIZE, { origin: 'https://evil.example', authorization: '' }), 403, 'forbidden_origin');
    apiError(await mcp(INITIALIZE, { origin: 'null' }), 403, 'forbidden_origin');
  });

  it('an allowed origin is served with CORS headers, errors included', async () => {
    const sent = await mcp(INITIALIZE, { origin: ALLOWED_ORIGIN });
    expect(sent.status).toBe(200);
    expect(sent.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
    const refused = await mcp(INITIALIZE, { origin: ALLOWED_ORIGIN, authorization: '' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
    expect(refused.headers.get('access-control-expose-headers')).toContain('www-authenticate');
  });

  it('answers a CORS preflight for an allowed origin only', async () => {
    const preflight = await fetch(`${gateway.origin}/mcp`, { method: 'OPTIONS', headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version');
    const foreign = await fetch(`${gateway.origin}/mcp`, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
  });
});

describe('tool calls over HTTP', () => {
  it('relays a reply larger than the socket buffers whole (backpressure)', async () => {
    const text = 'y'.repeat(6 * 1024 * 1024);
    mock.setBehavior({ kind: 'json', text, completionTokens: 10 });
    try {
      const [message] = events(await mcp(callTool({ model: 'relay', prompt: 'big' })));
      expect(message.result.content[0].text.length).toBe(text.length);
    } finally {
      mock.setBehavior(undefined);
    }
  });

  it('a client that goes away mid-call aborts the upstream request', async () => {
    mock.reset();
    const controller = new AbortController();
    const pending = mcp(callTool({ model: 'relay', prompt: 'mock:{"kind":"hang"}' }), {}, 'POST', controller.signal).catch((error: unknown) => error);
    await mock.waitForRequests(1);
    controller.abort();
    await mock.waitForAbort(1);
    expect(await pending).toBeInstanceOf(Error);
  });
});
