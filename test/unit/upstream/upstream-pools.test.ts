import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../../src/config/config-types.ts';
import { UpstreamPools } from '../../../src/upstream/upstream-pools.ts';

const TIMEOUTS = { connectTimeoutMs: 1_000, firstByteTimeoutMs: 5_000, responseTimeoutMs: 5_000, idleTimeoutMs: 5_000, maxEventBytes: 1024 * 1024 };

// An upstream that answers /quick at once and holds /held until the test lets it go.
let server: Server;
let origin: string;
const held: ServerResponse[] = [];
const connections: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/held') {
      res.writeHead(200, { 'content-type': 'text/plain' }).flushHeaders();
      return void held.push(res);
    }
    res.end('quick');
  });
  server.on('connection', (socket) => connections.push(`${socket.remotePort}`));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

function poolsFor(upstreamOrigin: string): UpstreamPools {
  return new UpstreamPools([modelOn(upstreamOrigin)], TIMEOUTS);
}

function modelOn(upstreamOrigin: string, maxConnections = 8): ModelConfig {
  return {
    id: 'm', ownedBy: 'x', description: '', contextTokens: 1_000, maxOutputTokens: 100, defaultMaxTokens: 10,
    supports: { tools: true, responseFormat: true, contentParts: false },
    target: { kind: 'upstreams', upstreams: [{ baseUrl: `${upstreamOrigin}/v1`, origin: upstreamOrigin, chatPath: '/v1/chat/completions', responsesPath: '/v1/responses', messagesPath: '/v1/messages', api: ['chat'], model: 'u', apiKey: null, weight: 1, maxConnections }] },
  };
}

describe('UpstreamPools.renew', () => {
  it('gives the origin a fresh pool while the old one finishes its request, then closes it', async () => {
    const pools = poolsFor(origin);
    const old = pools.get(origin);
    const quick = await old.request({ path: '/quick', method: 'GET' });
    expect(await quick.body.text()).toBe('quick');
    const running = await old.request({ path: '/held', method: 'GET' });
    expect(pools.stats()[origin]).toMatchObject({ connected: 2, running: 1 });

    const renewed = pools.renew(5_000);
    const fresh = pools.get(origin);
    expect(fresh).not.toBe(old);
    // The idle connection is closed at once; the running request keeps the old pool and is counted.
    expect(pools.stats()[origin]).toMatchObject({ running: 1 });
    const before = connections.length;
    expect(await (await fresh.request({ path: '/quick', method: 'GET' })).body.text()).toBe('quick');
    expect(connections.length).toBe(before + 1);

    held.shift()!.end('held to the end');
    expect(await running.body.text()).toBe('held to the end');
    await renewed;
    expect(old.closed).toBe(true);
    expect(pools.stats()[origin]).toMatchObject({ connected: 1, running: 0 });
    await pools.close();
  });

  it('stops waiting for an old pool after the time it was given', async () => {
    const pools = poolsFor(origin);
    const old = pools.get(origin);
    const running = await old.request({ path: '/held', method: 'GET' });
    const began = performance.now();
    await pools.renew(200);
    expect(performance.now() - began).toBeGreaterThanOrEqual(150);
    expect(old.closed).toBe(true);
    expect(old.destroyed).toBe(false);
    // Closing everything still ends the old pool's request.
    await pools.close(100);
    expect(old.destroyed).toBe(true);
    await expect(running.body.text()).rejects.toThrow();
    held.shift()?.end();
  });
});

describe('UpstreamPools.reconfigure', () => {
  const OTHER = 'http://127.0.0.1:1';

  it('keeps the pool of an unchanged origin, adds new ones, and drops gone ones after their requests', async () => {
    const pools = poolsFor(origin);
    const kept = pools.get(origin);
    pools.reconfigure([modelOn(origin), modelOn(OTHER)], TIMEOUTS);
    expect(pools.get(origin)).toBe(kept);
    expect(pools.get(OTHER)).toBeDefined();

    const running = await kept.request({ path: '/held', method: 'GET' });
    pools.reconfigure([modelOn(OTHER)], TIMEOUTS);
    expect(() => pools.get(origin)).toThrow(/no pool/);
    expect(kept.closed).toBe(true);
    expect(pools.stats()[origin]).toMatchObject({ running: 1 });
    held.shift()!.end('finished on the dropped pool');
    expect(await running.body.text()).toBe('finished on the dropped pool');
    await expect.poll(() => kept.destroyed || pools.stats()[origin] === undefined).toBe(true);
    await pools.close();
  });

  it('gives an origin a fresh pool when its connection cap or the timeouts change', async () => {
    const pools = poolsFor(origin);
    const first = pools.get(origin);
    pools.reconfigure([modelOn(origin, 16)], TIMEOUTS);
    const second = pools.get(origin);
    expect(second).not.toBe(first);
    expect(first.closed).toBe(true);
    pools.reconfigure([modelOn(origin, 16)], { ...TIMEOUTS, connectTimeoutMs: 2_000 });
    expect(pools.get(origin)).not.toBe(second);
    await pools.close();
  });
});
