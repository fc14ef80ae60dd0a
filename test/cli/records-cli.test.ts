// `munja keys create|update` with a budget, priority, cache setting and expiry, and `munja accounts
// budget|priority`: stored exactly (amounts in micro-units), cleared with none, audited, and every
// bad value a usage error (exit 2) that changes nothing.
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

function munja(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(NODE, [ENTRY, ...args], { env: { ...process.env, MUNJA_DATA: dataDir }, cwd: ROOT }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
    child.stdin?.end('');
  });
}

async function ok(...args: string[]): Promise<any> {
  const run = await munja([...args, '--json']);
  expect(run, run.stderr).toMatchObject({ code: 0 });
  return JSON.parse(run.stdout);
}

async function inStore<T>(read: (store: SqliteStore) => Promise<T>): Promise<T> {
  const store = SqliteStore.open(dataDir);
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}

beforeEach(() => {
  dataDir = join(mkdtempSync(join(tmpdir(), 'munja-records-cli-')), 'data');
});

afterEach(() => {
  rmSync(join(dataDir, '..'), { recursive: true, force: true });
});

it('creates a key with a budget, priority, cache setting and expiry, changes and clears them, audited', async () => {
  const before = Date.now();
  const created = await ok('keys', 'create', '--account', 'dev@example.com', '--budget', '5.000001', '--budget-period', 'month',
    '--priority', 'high', '--cache', 'off', '--expires-in', '30d');
  expect(created).toMatchObject({ budget: { amount: 5.000001, period: 'month' }, priority: 'high', cache: 'off' });
  const stored = await inStore((store) => store.findKeyById(created.id));
  expect(stored).toMatchObject({ budget: { limit: 5_000_001, period: 'month' }, priority: 'high', cache: 'off' });
  expect(stored!.expiresAt).toBeGreaterThanOrEqual(before + 30 * 86_400_000);
  expect(stored!.expiresAt).toBeLessThanOrEqual(Date.now() + 30 * 86_400_000);

  const updated = await ok('keys', 'update', created.id, '--budget', '0.25', '--budget-period', 'day', '--expires-at', '2099-01-31T00:00:00Z', '--cache', 'none');
  expect(updated).toMatchObject({ budget: { amount: 0.25, period: 'day' }, expiresAt: '2099-01-31T00:00:00.000Z', priority: 'high', cache: null });
  const cleared = await ok('keys', 'update', created.id, '--budget', 'none', '--priority', 'none', '--expires-at', 'none');
  expect(cleared).toMatchObject({ budget: null, priority: null, expiresAt: null, cache: null, status: 'active' });
  expect(await inStore((store) => store.findKeyById(created.id))).toMatchObject({ budget: null, priority: null, expiresAt: null, cache: null });

  const entries = await ok('audit', '--target', created.id);
  expect(entries.map((entry: any) => [entry.action, entry.fields])).toEqual([
    ['key.changed', { budget: null, priority: null, expiresAt: null }],
    ['key.changed', { budget: { amount: 0.25, period: 'day' }, cache: null, expiresAt: '2099-01-31T00:00:00.000Z' }],
    ['key.created', expect.objectContaining({ budget: { amount: 5.000001, period: 'month' }, priority: 'high', cache: 'off', expiresAt: expect.any(String) })],
  ]);
  expect(JSON.stringify(entries)).not.toContain(created.key.slice(9));
});

it("sets and clears an account's budget and priority", async () => {
  const key = await ok('keys', 'create', '--account', 'team@example.com');
  expect(await ok('accounts', 'budget', 'team@example.com', '--amount', '100', '--period', 'total')).toMatchObject({ budget: { amount: 100, period: 'total' } });
  expect(await ok('accounts', 'priority', 'team@example.com', 'low')).toMatchObject({ budget: { amount: 100, period: 'total' }, priority: 'low' });
  const found = await inStore(async (store) => (await store.findAccountByEmail('team@example.com'))!);
  expect(found).toMatchObject({ budget: { limit: 100_000_000, period: 'total' }, priority: 'low' });
  expect(await ok('accounts', 'budget', 'team@example.com', '--clear')).toMatchObject({ budget: null, priority: 'low' });
  expect(await ok('accounts', 'priority', 'team@example.com', 'none')).toMatchObject({ budget: null, priority: null });
  const actions = (await ok('audit', '--target', found.id)).map((entry: any) => [entry.action, entry.fields]);
  expect(actions.slice(0, 4)).toEqual([
    ['account.changed', { priority: null }], ['account.changed', { budget: null }],
    ['account.changed', { priority: 'low' }], ['account.changed', { budget: { amount: 100, period: 'total' } }],
  ]);
  const human = await munja(['accounts', 'budget', 'team@example.com', '--amount', '5', '--period', 'month']);
  expect(human.stdout).toBe('Budget of team@example.com: 5 per month.\n');
  expect(key.budget).toBeNull();
});

it('refuses bad values with a usage error and changes nothing', async () => {
  const key = await ok('keys', 'create', '--account', 'dev@example.com');
  const refusals: [string[], RegExp][] = [
    [['keys', 'create', '--account', 'dev@example.com', '--budget', '1.0000001', '--budget-period', 'day'], /at most six decimals/],
    [['keys', 'create', '--account', 'dev@example.com', '--budget=-1', '--budget-period', 'day'], /--budget must be/],
    [['keys', 'create', '--account', 'dev@example.com', '--budget', 'NaN', '--budget-period', 'day'], /--budget must be/],
    [['keys', 'create', '--account', 'dev@example.com', '--budget', '5'], /--budget-period/],
    [['keys', 'create', '--account', 'dev@example.com', '--budget', '5', '--budget-period', 'week'], /--budget-period must be day, month, total;/],
    [['keys', 'create', '--account', 'dev@example.com', '--priority', 'urgent'], /--priority must be high, normal, low or none/],
    [['keys', 'create', '--account', 'dev@example.com', '--expires-at', '2000-01-01T00:00:00Z'], /in the past/],
    [['keys', 'create', '--account', 'dev@example.com', '--expires-at', 'tomorrow'], /ISO-8601/],
    [['keys', 'create', '--account', 'dev@example.com', '--expires-in', '3w'], /--expires-in must be/],
    [['keys', 'create', '--account', 'dev@example.com', '--expires-in', '1d', '--expires-at', '2099-01-01'], /not both/],
    [['keys', 'update', key.id, '--cache', 'maybe'], /--cache must be on, off or none/],
    [['keys', 'update', key.id], /nothing to change/],
    [['keys', 'update', key.key, '--priority', 'high'], /takes the key's id/],
    [['accounts', 'budget', 'dev@example.com', '--amount', '5'], /--period/],
    [['accounts', 'budget', 'dev@example.com', '--clear', '--amount', '5'], /--clear takes no/],
    [['accounts', 'budget', 'dev@example.com'], /--clear/],
    [['accounts', 'priority', 'dev@example.com', 'top'], /PRIORITY must be/],
  ];
  for (const [args, message] of refusals) {
    const run = await munja(args);
    expect(run.code, args.join(' ')).toBe(2);
    expect(run.stderr, args.join(' ')).toMatch(message);
  }
  expect((await munja(['keys', 'update', 'key_missing', '--priority', 'high'])).code).toBe(1);
  expect((await munja(['accounts', 'priority', 'nobody@example.com', 'high'])).code).toBe(1);
  await inStore(async (store) => {
    expect(await store.listKeys()).toHaveLength(1);
    expect(await store.findKeyById(key.id)).toMatchObject({ budget: null, priority: null, cache: null, expiresAt: null });
    expect(await store.findAccountByEmail('dev@example.com')).toMatchObject({ budget: null, priority: null });
  });
});
