// Reloading the config under load fails no request: `munja serve` on the defaults serves a model on
// upstream A while clients keep sending requests and a few long streams run on A; the config file
// then moves the model to upstream B and adds a model, and SIGHUP applies it. Every request
// succeeds, every stream on A runs to [DONE] (its old connection pool closes only after them), and
// what follows goes to B. A bad config is refused with one log line and the running one kept; a
// change that needs a restart is named in a warning (applied by `munja reload`). Each reload is
// audited. With server.watchConfig, saving the file is enough.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody } from '../helpers/http.ts';
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { killServeProcesses, type ServeProcess, startServeProcess } from '../helpers/serve-process.ts';
import { chunksOf } from '../helpers/sse.ts';

const CLI = fileURLToPath(new URL('../../src/cli/munja.ts', import.meta.url));
const CLIENTS = 4;
const MAX_REQUESTS = 500; // a bound on the load whatever happens (the default 600 rpm admits it)
const PAUSE_MS = 10; // between one client's requests: the bound lasts beyond the reload
const STREAMS = 3;
const STREAM_CHUNKS = 25;
const LONG_STREAM = `mock:${JSON.stringify({ kind: 'stream', chunks: STREAM_CHUNKS, paceMs: 100 })}`;

const dir = mkdtempSync(join(tmpdir(), 'munja-reload-'));
const dataDir = join(dir, 'data');
const configFile = join(dir, 'munja.json');
let a: MockUpstream;
let b: MockUpstream;
let serve: ServeProcess;
let key: string;

const writeConfig = (config: unknown) => writeFileSync(configFile, typeof config === 'string' ? config : JSON.stringify(config));
const upstream = (mock: MockUpstream) => ({ upstreams: [{ baseUrl: mock.baseUrl, model: 'mock-model' }] });
const munja = (...args: string[]) => promisify(execFile)(process.execPath, [CLI, ...args], { env: { ...process.env, MUNJA_DATA: dataDir, MUNJA_CONFIG: configFile } });

async function chat(body: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`http://127.0.0.1:${serve.port}/v1/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body,
  });
  return { status: response.status, text: await response.text() };
}

async function auditEntries(action: string): Promise<{ fields: Record<string, unknown> }[]> {
  const { stdout } = await munja('audit', '--action', action, '--json');
  return JSON.parse(stdout) as { fields: Record<string, unknown> }[];
}

async function waitForLog(text: string, count: number): Promise<void> {
  const seen = () => serve.stdout().split('\n').filter((line) => line.includes(text)).length;
  for (let i = 0; i < 200 && seen() < count; i++) await new Promise((resume) => setTimeout(resume, 50));
  expect(seen(), `log lines with ${text}`).toBe(count);
}

beforeAll(async () => {
  a = await startMockUpstream();
  b = await startMockUpstream();
  writeConfig({ defaultModels: false, models: { up: upstream(a) } });
  serve = await startServeProcess({ MUNJA_DATA: dataDir, MUNJA_CONFIG: configFile });
  key = serve.firstKey()!;
});
afterAll(async () => {
  killServeProcesses();
  await Promise.all([a.close(), b.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('config reload', () => {
  it('moves a model to another upstream and adds one under load, failing no request and cutting no stream', async () => {
    const streams = Array.from({ length: STREAMS }, () => chat(chatBody({ model: 'up', stream: true, messages: [{ role: 'user', content: LONG_STREAM }] })));
    await a.waitFor(() => a.requests.filter((request) => (request.body as { stream?: boolean }).stream === true).length === STREAMS, 'the long streams reached A');

    const failures: string[] = [];
    let sent = 0;
    let stop = false;
    const client = async () => {
      while (!stop && sent < MAX_REQUESTS) {
        sent++;
        const { status, text } = await chat(chatBody({ model: 'up' }));
        if (status !== 200) failures.push(`${status} ${text}`);
        await new Promise((resume) => setTimeout(resume, PAUSE_MS));
      }
    };
    const load = Promise.all(Array.from({ length: CLIENTS }, client));
    await a.waitFor(() => a.totals.requests >= STREAMS + 10, 'the load reached A');

    writeConfig({ defaultModels: false, models: { up: upstream(b), extra: upstream(b) } });
    serve.child.kill('SIGHUP');
    await waitForLog('"msg":"config reloaded"', 1);
    const servedByA = a.totals.requests;
    await b.waitFor(() => b.totals.requests >= 10, 'the load moved to B');
    stop = true;
    await load;

    expect(failures).toEqual([]);
    for (const stream of await Promise.all(streams)) {
      expect(stream.status).toBe(200);
      expect(stream.text.trimEnd().endsWith('data: [DONE]')).toBe(true);
      expect(chunksOf(stream.text).filter((chunk) => chunk.choices?.[0]?.delta?.content).length).toBe(STREAM_CHUNKS);
    }
    expect(a.totals.aborted).toBe(0);
    // Nothing sent after the reload went to A (a request admitted before it may still have).
    expect(a.totals.requests - servedByA).toBeLessThanOrEqual(CLIENTS);
    expect((await chat(chatBody({ model: 'extra' }))).status).toBe(200);
    expect((b.requests.at(-1)!.body as { model?: string }).model).toBe('mock-model');

    const [entry] = await auditEntries('config.reloaded');
    expect(entry?.fields).toEqual({ changed: ['models'], needRestart: [] });
  });

  it('refuses a bad config with one log line and keeps serving the running one', async () => {
    writeConfig('{"models": {"up": ');
    serve.child.kill('SIGHUP');
    await waitForLog('config reload refused', 1);
    expect(serve.stdout()).toMatch(/"level":50.*"reason":"MUNJA_CONFIG: [^"]* is not valid JSON/);
    expect(serve.child.exitCode).toBeNull();
    expect((await chat(chatBody({ model: 'extra' }))).status).toBe(200);

    writeConfig({ defaultModels: false, models: { up: upstream(b) }, limits: { unknownSetting: 1 } });
    serve.child.kill('SIGHUP');
    await waitForLog('config reload refused', 2);
    expect((await chat(chatBody({ model: 'extra' }))).status).toBe(200);
    expect(await auditEntries('config.reload_refused')).toHaveLength(2);
  });

  it('applies what it can and names what needs a restart', async () => {
    writeConfig({ defaultModels: false, models: { up: upstream(b) }, server: { maxInFlight: 777 } });
    const { stdout } = await munja('reload');
    expect(stdout).toContain(`pid ${serve.child.pid}`);
    await waitForLog('"msg":"config reloaded"', 2);
    await waitForLog('take effect at the next restart', 1);
    expect(serve.stdout()).toMatch(/"sections":\["maxInFlight"\].*take effect at the next restart/);
    const gone = await chat(chatBody({ model: 'extra' }));
    expect(gone.status).toBe(404);
    const [latest] = await auditEntries('config.reloaded');
    expect(latest?.fields).toEqual({ changed: ['maxInFlight', 'models'], needRestart: ['maxInFlight'] });
  });

  it('with server.watchConfig, reloads when the file is saved (written, or renamed over)', async () => {
    const watchedDir = mkdtempSync(join(tmpdir(), 'munja-reload-watch-'));
    const watchedFile = join(watchedDir, 'munja.json');
    const file = (models: Record<string, unknown>) => JSON.stringify({ defaultModels: false, server: { watchConfig: true }, models });
    writeFileSync(watchedFile, file({ up: upstream(a) }));
    const watched = await startServeProcess({ MUNJA_CONFIG: watchedFile });
    const models = async () => ((await (await fetch(`http://127.0.0.1:${watched.port}/v1/models`, { headers: { authorization: `Bearer ${watched.firstKey()!}` } })).json()) as { data: { id: string }[] }).data.map((model) => model.id);
    expect(await models()).toEqual(['up']);

    writeFileSync(`${watchedFile}.tmp`, file({ up: upstream(a), extra: upstream(b) }));
    renameSync(`${watchedFile}.tmp`, watchedFile);
    await expect.poll(models, { timeout: 10_000 }).toEqual(['up', 'extra']);
    writeFileSync(watchedFile, file({ extra: upstream(b) }));
    await expect.poll(models, { timeout: 10_000 }).toEqual(['extra']);
    watched.child.kill('SIGTERM');
    expect(await watched.exited).toBe(0);
    rmSync(watchedDir, { recursive: true, force: true });
  });

  it('munja reload says so when no server is running there', async () => {
    const emptyDir = mkdtempSync(join(tmpdir(), 'munja-reload-none-'));
    const run = (dataDir: string) => promisify(execFile)(process.execPath, [CLI, 'reload'], { env: { ...process.env, MUNJA_DATA: dataDir } });
    await expect(run(emptyDir)).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('No server found') });
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(join(emptyDir, 'munja.pid'), `${gone}\n`);
    await expect(run(emptyDir)).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining(`No process ${gone}`) });
    rmSync(emptyDir, { recursive: true, force: true });
  });
});
