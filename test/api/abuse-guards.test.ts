// What a free public service must not give away (issue: a security review of the defaults): MCP
// calls other than completions were not counted, batches were unbounded, a bad escape in a path was
// a 500 with a stack, every response named the server software, request ids counted the requests,
// a client leaving mid-body was an error with a stack, and request logs had no client address.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app.ts';
import { createApiKey } from '../../src/auth/create-key.ts';
import type { ConfigFile } from '../../src/config/config-file.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { FAST_TEST_CONFIG } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import { httpRequest, openSocket } from '../helpers/raw-socket.ts';

interface LoggedGateway { app: RunningApp; origin: string; lines: () => Array<Record<string, unknown>>; close: () => Promise<void> }

/** A gateway whose log lines (debug and up) are kept for the test to read. */
async function startLoggedGateway(config: ConfigFile = FAST_TEST_CONFIG): Promise<LoggedGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'munja-abuse-'));
  let text = '';
  const sink = new Writable({ write(chunk, _encoding, done) { text += chunk.toString(); done(); } });
  const settings = loadConfig({ MUNJA_DATA: dir, PORT: '0', HOST: '127.0.0.1', MUNJA_METRICS_PORT: 'off' }, config);
  const app = await startApp(settings, createLogger('debug', sink));
  return {
    app,
    origin: `http://127.0.0.1:${app.port}`,
    lines: () => text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>),
    async close() {
      await app.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let gateway: LoggedGateway;
let key: string;

beforeAll(async () => {
  gateway = await startLoggedGateway();
  key = (await createApiKey(gateway.app.store, { accountEmail: 'user@example.com', createAccount: true })).key;
});
afterAll(() => gateway.close());

type LogLine = Record<string, unknown>;

/** The request log line that `match` picks (from line `from` on), once written (lines go out in batches). */
async function requestLine(target: LoggedGateway, match: (line: LogLine) => boolean, from = 0): Promise<LogLine> {
  const find = () => target.lines().slice(from).find((line) => line.msg === 'request' && match(line));
  await expect.poll(find).toBeDefined();
  return find()!;
}

/** Waits until the gateway holds `count` requests open. */
async function openRequests(target: LoggedGateway, count: number): Promise<void> {
  await expect.poll(() => target.app.lifecycle.inFlight).toBe(count);
}

function mcpPost(auth: string, body: unknown): Promise<Response> {
  return fetch(`${gateway.origin}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify(body),
  });
}

const toolsList = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });

describe('MCP is counted', () => {
  it('every message counts against the key: with its requests spent, tools/list gets 429', async () => {
    const limited = (await createApiKey(gateway.app.store, { accountEmail: 'mcp@example.com', createAccount: true, rpm: 3 })).key;
    const statuses: number[] = [];
    for (let call = 0; call < 5; call++) {
      const response = await mcpPost(limited, toolsList(call));
      await response.text();
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const refused = await mcpPost(limited, toolsList(9));
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
  });

  it('each message of a batch counts: a batch of 3 on a key with 2 requests left gets 429', async () => {
    const limited = (await createApiKey(gateway.app.store, { accountEmail: 'batch@example.com', createAccount: true, rpm: 2 })).key;
    const response = await mcpPost(limited, [toolsList(1), toolsList(2), toolsList(3)]);
    expect(response.status).toBe(429);
  });

  it('a batch of more than 16 messages → 400 batch_too_large', async () => {
    const response = await mcpPost(key, Array.from({ length: 17 }, (_, index) => toolsList(index)));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('batch_too_large');
  });
});

describe('cheap checks first', () => {
  it('a key with its requests spent gets 429 for a 3.9 MB prompt, not 400', async () => {
    const spent = (await createApiKey(gateway.app.store, { accountEmail: 'spent@example.com', createAccount: true, rpm: 2 })).key;
    const post = (content: string) => fetch(`${gateway.origin}/v1/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${spent}`, 'content-type': 'application/json' },
      body: chatBody({ messages: [{ role: 'user', content }], max_tokens: 2 }),
    });
    for (let call = 0; call < 2; call++) expect((await post('hi')).status).toBe(200);
    const refused = await post('x'.repeat(3_900_000));
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
  });
});

describe('small leaks', () => {
  it('GET /v1/models/%E0%A4%A → 404 model_not_found, and no error is logged', async () => {
    const response = await fetch(`${gateway.origin}/v1/models/%E0%A4%A`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('model_not_found');
    await requestLine(gateway, (line) => line.reqId === response.headers.get('x-request-id'));
    expect(gateway.lines().filter((line) => (line.level as number) >= 50 && line.msg !== 'request')).toEqual([]);
  });

  it('no response names the server software', async () => {
    for (const path of ['/health', '/v1/models', '/nope']) {
      const response = await fetch(`${gateway.origin}${path}`, { headers: { authorization: `Bearer ${key}` } });
      await response.arrayBuffer();
      expect([...response.headers.keys()].filter((name) => /uwebsockets|server|x-powered-by/i.test(name))).toEqual([]);
    }
  });

  it('request ids are random: consecutive ids share nothing but the process prefix', async () => {
    const ids: string[] = [];
    for (let call = 0; call < 50; call++) {
      const response = await fetch(`${gateway.origin}/health`);
      await response.text();
      ids.push(response.headers.get('x-request-id')!);
    }
    expect(new Set(ids).size).toBe(50);
    const tails = ids.map((id) => id.slice(16));
    for (const tail of tails) expect(tail).toMatch(/^[0-9a-f]{16}$/);
    // A counter would leave the leading digits of consecutive ids equal.
    expect(new Set(tails.map((tail) => tail.slice(0, 4))).size).toBeGreaterThan(40);
  });

  it('the request log line carries the client address', async () => {
    const response = await fetch(`${gateway.origin}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    const id = response.headers.get('x-request-id');
    await response.text();
    expect((await requestLine(gateway, (line) => line.reqId === id)).clientAddress).toBe('127.0.0.1');
  });

  it('a client that leaves mid-body is a debug line without a stack, not an error', async () => {
    const before = gateway.lines().length;
    const socket = await openSocket(gateway.app.port);
    socket.write(httpRequest('POST /v1/chat/completions HTTP/1.1', ['Host: x', `Authorization: Bearer ${key}`, 'Content-Type: application/json', 'Content-Length: 100000']) + '{"model":');
    await openRequests(gateway, 1);
    socket.destroy();
    await requestLine(gateway, (line) => line.path === '/v1/chat/completions', before);
    const lines = gateway.lines();
    expect(lines.filter((line) => (line.level as number) >= 50 && line.msg !== 'request')).toEqual([]);
    const left = lines.filter((line) => line.msg === 'client left before the answer');
    expect(left.length).toBeGreaterThan(0);
    expect(left.every((line) => line.level === 20 && line.err === undefined)).toBe(true);
  });
});

describe('a client leaving mid-body on the dashboard', () => {
  it('is not logged as an error either', async () => {
    const before = gateway.lines().length;
    const socket = await openSocket(gateway.app.port);
    socket.write(httpRequest('POST /dashboard/api/sign-in HTTP/1.1', ['Host: x', 'Content-Type: application/json', 'Content-Length: 1000']) + '{"email":');
    await openRequests(gateway, 1);
    socket.destroy();
    await requestLine(gateway, (line) => line.path === '/dashboard/api/sign-in', before);
    expect(gateway.lines().slice(before).filter((line) => (line.level as number) >= 50)).toEqual([]);
  });
});

describe('trusted proxy', () => {
  it('server.trustProxy takes the client address from the last X-Forwarded-For entry; by default it is ignored', async () => {
    const proxied = await startLoggedGateway({ ...FAST_TEST_CONFIG, server: { trustProxy: true } });
    try {
      for (const target of [proxied, gateway]) {
        const response = await fetch(`${target.origin}/health`, { headers: { 'x-forwarded-for': '203.0.113.9, 198.51.100.4' } });
        const id = response.headers.get('x-request-id');
        await response.text();
        const line = await requestLine(target, (entry) => entry.reqId === id);
        expect(line.clientAddress).toBe(target === proxied ? '198.51.100.4' : '127.0.0.1');
      }
    } finally {
      await proxied.close();
    }
  });
});

describe('requests open per client address', () => {
  it('on the defaults, the 129th request open from one address gets 429 too_many_open_requests', async () => {
    const holders = await Promise.all(Array.from({ length: 128 }, async () => {
      const socket = await openSocket(gateway.app.port);
      socket.write(httpRequest('POST /v1/chat/completions HTTP/1.1', ['Host: x', `Authorization: Bearer ${key}`, 'Content-Type: application/json', 'Content-Length: 1000']) + '{');
      return socket;
    }));
    try {
      await openRequests(gateway, 128);
      const refused = await fetch(`${gateway.origin}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('too_many_open_requests');
    } finally {
      for (const socket of holders) socket.destroy();
    }
    await openRequests(gateway, 0);
    expect((await fetch(`${gateway.origin}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
  });

  it('past server.maxRequestsPerAddress a request gets 429 too_many_open_requests and a close; others are served meanwhile', async () => {
    const capped = await startLoggedGateway({ ...FAST_TEST_CONFIG, server: { maxRequestsPerAddress: 2 } });
    try {
      const cappedKey = (await createApiKey(capped.app.store, { accountEmail: 'cap@example.com', createAccount: true })).key;
      // Two requests whose bodies never finish hold both slots of 127.0.0.1.
      const holders = await Promise.all([0, 1].map(async () => {
        const socket = await openSocket(capped.app.port);
        socket.write(httpRequest('POST /v1/chat/completions HTTP/1.1', ['Host: x', `Authorization: Bearer ${cappedKey}`, 'Content-Type: application/json', 'Content-Length: 1000']) + '{');
        return socket;
      }));
      await openRequests(capped, 2);
      const refused = await fetch(`${capped.origin}/v1/chat/completions`, {
        method: 'POST', headers: { authorization: `Bearer ${cappedKey}`, 'content-type': 'application/json' }, body: chatBody(),
      });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('connection')).toBe('close');
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('too_many_open_requests');
      expect((await fetch(`${capped.origin}/health`)).status).toBe(200); // probes are never capped
      for (const socket of holders) socket.destroy();
      await openRequests(capped, 0);
      const served = await fetch(`${capped.origin}/v1/chat/completions`, {
        method: 'POST', headers: { authorization: `Bearer ${cappedKey}`, 'content-type': 'application/json' }, body: chatBody(),
      });
      expect(served.status).toBe(200);
    } finally {
      await capped.close();
    }
  });
});

describe('buffered body bytes per process', () => {
  it('past server.maxBufferedBodyBytes a body gets 503 overloaded; once it is freed bodies are read again', async () => {
    const tight = await startLoggedGateway({ ...FAST_TEST_CONFIG, server: { maxBodyBytes: 256 * 1024, maxBufferedBodyBytes: 256 * 1024 } });
    try {
      const tightKey = (await createApiKey(tight.app.store, { accountEmail: 'budget@example.com', createAccount: true })).key;
      // One body of 250 KiB, 200 KiB of it sent, holds most of the budget…
      const holder = await openSocket(tight.app.port);
      holder.write(httpRequest('POST /v1/chat/completions HTTP/1.1', ['Host: x', `Authorization: Bearer ${tightKey}`, 'Content-Type: application/json', `Content-Length: ${250 * 1024}`]) + ' '.repeat(200 * 1024));
      // …so a second big one does not fit, once the first has arrived.
      const content = 'x'.repeat(150 * 1024);
      const post = async () => {
        const response = await fetch(`${tight.origin}/v1/chat/completions`, {
          method: 'POST', headers: { authorization: `Bearer ${tightKey}`, 'content-type': 'application/json' }, body: chatBody({ messages: [{ role: 'user', content }], max_tokens: 2 }),
        });
        const body = (await response.json()) as { error?: { code: string } };
        return { status: response.status, code: body.error?.code ?? null };
      };
      await expect.poll(post).toEqual({ status: 503, code: 'overloaded' });
      holder.destroy();
      await expect.poll(post).toEqual({ status: 200, code: null });
    } finally {
      await tight.close();
    }
  });
});
