// The CLI's changes land in the audit log (actor `cli`, no address, never a secret), `munja audit`
// reads it, and `keys create --admin` makes an admin key.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite-store.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = join(ROOT, 'node_modules/.bin/node');
const ENTRY = join(ROOT, 'src/cli/munja.ts');

let dataDir: string;

function munja(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(NODE, [ENTRY, ...args], { env: { ...process.env, MUNJA_DATA: dataDir }, cwd: ROOT }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
    child.stdin?.end(input ?? '');
  });
}

async function ok(...args: string[]): Promise<string> {
  const run = await munja(args);
  expect(run, run.stderr).toMatchObject({ code: 0 });
  return run.stdout;
}

beforeEach(() => {
  dataDir = join(mkdtempSync(join(tmpdir(), 'munja-audit-cli-')), 'data');
});

afterEach(() => {
  rmSync(join(dataDir, '..'), { recursive: true, force: true });
});

it('audits every change the CLI makes, and munja audit reads them newest first', async () => {
  const created = JSON.parse(await ok('keys', 'create', '--account', 'ops@example.com', '--name', 'ci', '--admin', '--json'));
  expect(created.admin).toBe(true);
  await ok('accounts', 'create', 'dev@example.com');
  await ok('accounts', 'suspend', 'dev@example.com');
  await ok('accounts', 'resume', 'dev@example.com');
  await ok('accounts', 'admin', 'dev@example.com');
  await ok('accounts', 'admin', 'dev@example.com', '--revoke');
  const password = await munja(['accounts', 'password', 'dev@example.com'], 'a long enough passphrase');
  expect(password.code, password.stderr).toBe(0);
  await ok('keys', 'revoke', created.id);
  await ok('keys', 'revoke', created.id); // already revoked: nothing changes, nothing audited

  const entries = JSON.parse(await ok('audit', '--json'));
  expect(entries.map((entry: any) => entry.action)).toEqual([
    'key.revoked', 'password.set', 'account.admin_revoked', 'account.admin_granted', 'account.resumed', 'account.suspended',
    'account.created', 'key.created', 'account.created',
  ]);
  expect(entries.every((entry: any) => entry.actor === 'cli' && entry.address === null)).toBe(true);
  expect(entries.at(-2)).toMatchObject({ target: created.id, fields: { name: 'ci', admin: true } });
  expect(JSON.stringify(entries)).not.toContain(created.key.slice(9));
  expect(JSON.stringify(entries)).not.toContain('passphrase');

  const store = SqliteStore.open(dataDir);
  try {
    expect((await store.findKeyById(created.id))?.admin).toBe(true);
  } finally {
    await store.close();
  }

  const revoked = JSON.parse(await ok('audit', '--action', 'key.revoked', '--json'));
  expect(revoked).toHaveLength(1);
  expect(JSON.parse(await ok('audit', '--target', created.id, '--limit', '1', '--json'))).toEqual([entries[0]]);
  expect(await ok('audit', '--limit', '2')).toMatch(/ACTION[\s\S]*key\.revoked[\s\S]*password\.set/);
  const bad = await munja(['audit', '--limit', '0']);
  expect(bad.code).toBe(2);
});
