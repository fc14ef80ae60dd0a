// `npm run mock-upstream` as docs/development.md shows it: two mock servers (a healthy one and one
// that always answers 503) and Munja on the documented config, which routes models to them.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ConfigFile } from '../../src/config/config-file.ts';
import { type TestGateway, startGateway } from '../helpers/gateway.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOC = readFileSync(new URL('../../docs/development.md', import.meta.url), 'utf8');

interface MockProcess {
  readonly npm: ChildProcess;
  readonly port: number;
  out(): string;
  err(): string;
  readonly exited: Promise<number | null>;
}

const started: MockProcess[] = [];

async function npmMockUpstream(...args: string[]): Promise<MockProcess> {
  const npm = spawn('npm', ['run', '--silent', 'mock-upstream', '--', '--port', '0', ...args], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  npm.stdout!.on('data', (chunk: Buffer) => { out += chunk.toString(); });
  npm.stderr!.on('data', (chunk: Buffer) => { err += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  await vi.waitFor(() => expect(out, err).toMatch(/^\{"port":\d+\}\n/), { timeout: 20_000, interval: 50 });
  const mock = { npm, port: JSON.parse(out.split('\n')[0]!).port as number, out: () => out, err: () => err, exited };
  started.push(mock);
  return mock;
}

/** The documented config, with the ports the mocks got instead of 8000 and 8001. */
function documentedConfig(healthy: number, failing: number): ConfigFile {
  const block = /A config that routes to them[^\n]*\n\n```json\n([\s\S]*?)```/.exec(DOC)![1]!;
  return JSON.parse(block.replaceAll('127.0.0.1:8000', `127.0.0.1:${healthy}`).replaceAll('127.0.0.1:8001', `127.0.0.1:${failing}`));
}

let healthy: MockProcess;
let failing: MockProcess;
let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  healthy = await npmMockUpstream();
  failing = await npmMockUpstream('--behavior', '{"kind":"status","status":503}');
  gateway = await startGateway(documentedConfig(healthy.port, failing.port));
  key = (await gateway.createKey()).key;
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  for (const mock of started) {
    try {
      process.kill(-mock.npm.pid!, 'SIGKILL');
    } catch {
      // already stopped by the test
    }
  }
});

function chat(model: string, content = 'Hello') {
  return fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content }] }),
  });
}

describe('npm run mock-upstream', { timeout: 60_000 }, () => {
  it('says where it listens and what it does, for people', () => {
    expect(healthy.err()).toContain(`mock upstream: an OpenAI-compatible server at http://127.0.0.1:${healthy.port}/v1`);
    expect(failing.err()).toContain('Every request gets {"kind":"status","status":503}.');
  });

  it('answers a model routed to it, and a request that scripts its own behaviour', async () => {
    const response = await chat('mock');
    expect(response.status).toBe(200);
    expect((await response.json()).choices[0].message.content).toBe('Hello from the mock upstream.');
    const limited = await chat('mock', 'mock:{"kind":"status","status":429,"retryAfter":"5"}');
    expect(limited.status).toBe(429);
    expect((await limited.json()).error.code).toBe('upstream_rate_limited');
  });

  it('flaky: requests that land on the failing server are retried on the healthy one', async () => {
    for (let i = 0; i < 20; i++) expect((await chat('flaky')).status).toBe(200);
  });

  it('auto routes between the mock and the local engine, and says which served', async () => {
    const response = await chat('auto');
    expect(response.status).toBe(200);
    expect(['mock', 'fast']).toContain(response.headers.get('x-munja-served-model'));
  });

  it('Ctrl-C (SIGINT to npm) stops it, printing its totals', async () => {
    for (const mock of [healthy, failing]) process.kill(mock.npm.pid!, 'SIGINT');
    expect(await healthy.exited).toBe(0);
    expect(await failing.exited).toBe(0);
    const totals = (mock: MockProcess) => JSON.parse(mock.out().trimEnd().split('\n').at(-1)!);
    expect(totals(healthy).requests).toBeGreaterThanOrEqual(22);
    expect(totals(failing).requests).toBeGreaterThanOrEqual(1);
  });
});
