// runCli in-process with injected streams and env: what the server entry and other callers rely on.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { runCli } from '../../src/cli/munja.ts';

let root: string;

function captureIo(env: CliIo['env']) {
  const out = { stdout: '', stderr: '' };
  const io: CliIo = {
    stdout: { write: (chunk: string) => (out.stdout += chunk) },
    stderr: { write: (chunk: string) => (out.stderr += chunk) },
    env,
  };
  return { io, out };
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'munja-run-cli-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

it('reads the data directory from the injected env, not process.env', async () => {
  const dataDir = join(root, 'injected');
  const { io, out } = captureIo({ MUNJA_DATA: dataDir });
  expect(await runCli(['keys', 'create', '--account', 'a@example.com', '--json'], io)).toBe(0);
  const { io: listIo, out: listed } = captureIo({ MUNJA_DATA: dataDir });
  expect(await runCli(['keys', 'list', '--json'], listIo)).toBe(0);
  expect(JSON.parse(listed.stdout)).toHaveLength(1);
  expect(out.stderr).toBe('');
});

it('returns exit codes instead of throwing', async () => {
  const { io, out } = captureIo({ MUNJA_DATA: join(root, 'data') });
  expect(await runCli(['keys', 'revoke', 'key_x'], io)).toBe(1);
  expect(await runCli(['accounts', 'resume', 'bad'], io)).toBe(2);
  expect(out.stderr).toContain('munja: no key with id key_x');
  expect(out.stderr).toContain("munja: invalid email 'bad'");
});

it('reports an unusable data directory as a failure, without a stack', async () => {
  const file = join(root, 'a-file');
  writeFileSync(file, '');
  const { io, out } = captureIo({ MUNJA_DATA: join(file, 'data') });
  expect(await runCli(['keys', 'list'], io)).toBe(1);
  expect(out.stderr).toMatch(/^munja: /);
  expect(out.stderr).not.toMatch(/\n\s+at /);
});

it('refuses a key past the account’s cap (20 by default, or the config file’s) with a clear message', async () => {
  const env = { MUNJA_DATA: join(root, 'capped') };
  for (let i = 0; i < 20; i++) expect(await runCli(['keys', 'create', '--account', 'a@example.com', '--json'], captureIo(env).io)).toBe(0);
  const { io, out } = captureIo(env);
  expect(await runCli(['keys', 'create', '--account', 'a@example.com'], io)).toBe(1);
  expect(out.stderr).toMatch(/already has 20 keys.*maxKeysPerAccount/);
  expect(out.stdout).toBe('');
  const config = join(root, 'munja.json');
  writeFileSync(config, JSON.stringify({ server: { dashboard: { maxKeysPerAccount: 21 } } }));
  expect(await runCli(['keys', 'create', '--account', 'a@example.com'], captureIo({ ...env, MUNJA_CONFIG: config }).io)).toBe(0);
});
