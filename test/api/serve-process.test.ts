// The start path a newcomer uses: `munja serve` on an empty data dir saves a first key once,
// keys survive a restart, and SIGTERM drains in-flight streams before exiting 0.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DashboardClient } from '../helpers/dashboard-client.ts';
import { chatBody } from '../helpers/http.ts';
import { killServeProcesses, startServeProcess } from '../helpers/serve-process.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'munja-serve-'));
afterEach(killServeProcesses);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function chat(port: number, key: string, body = chatBody()) {
  return fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });
}

describe('munja serve', () => {
  let firstKey = '';

  it('saves a first key in an owner-only file, logs only JSON, and every printed hint works as printed', async () => {
    const server = await startServeProcess({ MUNJA_DATA: dataDir });
    const key = server.firstKey();
    expect(key).toMatch(/^sk_munja_\w+$/);
    const file = join(dataDir, 'first-api-key.txt');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // stdout is the log stream: JSON lines only, and the key is in none of them (nor on stderr).
    for (const line of server.stdout().trimEnd().split('\n')) expect(() => JSON.parse(line), line).not.toThrow();
    expect(server.stdout()).not.toContain(key);
    expect(server.stdout()).toContain(`"keyFile":"${file}"`);
    const notice = server.stderr();
    expect(notice).not.toContain(key);
    expect(notice).toContain(file);

    // The "Try it" lines, run as printed, answer a chat completion.
    const tryIt = notice.split('\n').filter((line) => /^\s+(export MUNJA_KEY|curl )/.test(line)).join('\n');
    const answer = JSON.parse(execFileSync('bash', ['-c', `${tryIt} -s`]).toString());
    expect(answer.object).toBe('chat.completion');

    // The password command, as printed (it names this MUNJA_DATA) and run where the server was started,
    // sets the password the dashboard takes.
    const passwordLine = notice.split('\n').find((line) => line.includes('accounts password'))!.trim();
    expect(passwordLine).toContain(`MUNJA_DATA=${dataDir}`);
    execFileSync('bash', ['-c', passwordLine], { input: 'a long enough password\n' });
    const signIn = await new DashboardClient(`http://127.0.0.1:${server.port}`).signIn('admin@munja.local', 'a long enough password');
    expect(signIn.status).toBe(200);
    expect(notice).toContain(`Dashboard: http://127.0.0.1:${server.port}/dashboard`);

    firstKey = key!;
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('keeps keys across a restart and prints no new key', async () => {
    const server = await startServeProcess({ MUNJA_DATA: dataDir });
    expect(server.firstKey()).toBeNull();
    expect(server.stderr()).toBe('');
    expect((await chat(server.port, firstKey)).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('sees keys the CLI creates and revokes while it runs, within a second', async () => {
    const server = await startServeProcess({ MUNJA_DATA: dataDir });
    const run = (...args: string[]) => spawnSync(process.execPath, ['src/cli/munja.ts', ...args, '--json'], { env: { ...process.env, MUNJA_DATA: dataDir }, encoding: 'utf8' });
    const cli = (...args: string[]) => {
      const result = run(...args);
      expect(result.status, result.stderr).toBe(0);
      return result.stdout;
    };
    const created = JSON.parse(cli('keys', 'create', '--account', 'live@example.com'));
    expect((await chat(server.port, created.key)).status).toBe(200);
    cli('keys', 'revoke', created.id);
    await expect.poll(async () => (await chat(server.port, created.key)).status, { timeout: 1_100 }).toBe(401);
    cli('accounts', 'suspend', 'live@example.com');
    const made = run('keys', 'create', '--account', 'live@example.com');
    expect(made.stderr).toContain('account live@example.com is suspended'); // made, and the CLI says it is refused
    const second = JSON.parse(made.stdout);
    expect((await chat(server.port, second.key)).status).toBe(403);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('on SIGTERM finishes a stream in flight, then exits 0', async () => {
    const config = join(dataDir, 'slow.json');
    writeFileSync(config, JSON.stringify({ models: { fast: { local: { timeToFirstTokenMs: 0, tokensPerSecond: 40 } } } }));
    const server = await startServeProcess({ MUNJA_DATA: dataDir, MUNJA_CONFIG: config });
    const response = await chat(server.port, firstKey, chatBody({ stream: true, max_tokens: 40 }));
    expect(response.status).toBe(200);
    const body = response.text();
    server.child.kill('SIGTERM');
    await expect.poll(server.stdout).toContain('"msg":"draining"');
    const text = await body;
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(await server.exited).toBe(0);
  });

  it('names the default models a config file keeps, on stderr for people and in the log', async () => {
    const config = join(dataDir, 'one-model.json');
    writeFileSync(config, JSON.stringify({ models: { fast: { upstreams: [{ baseUrl: 'http://127.0.0.1:9/v1', model: 'llama3.2:3b' }] } } }));
    const server = await startServeProcess({ MUNJA_DATA: dataDir, MUNJA_CONFIG: config });
    const note = 'MUNJA_CONFIG lists fast; the default models auto, default, pro, hrllm are kept';
    expect(server.stderr()).toContain(`munja: ${note}`);
    const logged = server.stdout().trimEnd().split('\n').map((line) => JSON.parse(line)).find((line) => String(line.msg).startsWith(note));
    expect(logged).toMatchObject({ level: 30 });
    const models = await fetch(`http://127.0.0.1:${server.port}/v1/models`, { headers: { authorization: `Bearer ${firstKey}` } });
    expect((await models.json()).data.map((model: { id: string }) => model.id)).toEqual(['auto', 'default', 'pro', 'fast', 'hrllm']);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  it('refuses to start on a bad setting, naming it', async () => {
    await expect(startServeProcess({ MUNJA_DATA: dataDir, PORT: 'eighty' })).rejects.toThrow(/PORT/);
  });
});
