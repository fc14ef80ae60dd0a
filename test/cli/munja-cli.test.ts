// The operator CLI as a real child process, each test with its own MUNJA_DATA.
import { ENVIRONMENT_SETTINGS } from '../../src/config/environment-settings.ts';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digestApiKey, hasValidFormat } from '../../src/auth/api-key.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = join(ROOT, 'node_modules/.bin/node');
const ENTRY = join(ROOT, 'src/cli/munja.ts');

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

let dataDir: string;

function munja(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(NODE, [ENTRY, ...args], { env: { ...process.env, MUNJA_DATA: dataDir }, cwd: ROOT }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

async function munjaJson<T>(...args: string[]): Promise<T> {
  const run = await munja(...args, '--json');
  expect(run, run.stderr).toMatchObject({ code: 0 });
  return JSON.parse(run.stdout) as T;
}

interface CreatedJson { id: string; key: string; account: string; name: string; models: string[] | null; rpm: number | null; tpm: number | null; admin: boolean }
interface KeyJson { id: string; account: string; status: string; prefix: string; lastFour: string; revokedAt: string | null }
interface AccountJson { email: string; status: string; isAdmin: boolean; created?: boolean }

function expectCleanFailure(run: Run, code: number, message: RegExp): void {
  expect(run.code).toBe(code);
  expect(run.stderr).toMatch(message);
  expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
  expect(run.stdout).toBe('');
}

beforeEach(() => {
  dataDir = join(mkdtempSync(join(tmpdir(), 'munja-cli-')), 'data');
});

afterEach(() => {
  rmSync(join(dataDir, '..'), { recursive: true, force: true });
});

describe('munja keys', () => {
  it('creates a key shown once, and lists it without the secret', async () => {
    const created = await munjaJson<CreatedJson>(
      'keys', 'create', '--account', 'Alice@Example.com', '--name', 'laptop', '--models', 'auto, fast', '--rpm', '60', '--tpm', '9000',
    );
    expect(hasValidFormat(created.key)).toBe(true);
    expect(created).toEqual({
      id: created.id, key: created.key, account: 'alice@example.com', name: 'laptop', models: ['auto', 'fast'], rpm: 60, tpm: 9000, admin: false,
      expiresAt: null, budget: null, priority: null, cache: null,
    });

    const list = await munja('keys', 'list', '--json');
    expect(list.stdout).not.toContain(created.key);
    const keys = JSON.parse(list.stdout) as KeyJson[];
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({
      id: created.id, account: 'alice@example.com', status: 'active', prefix: created.key.slice(0, 13), lastFour: created.key.slice(-4),
    });
    expect(keys[0]).not.toHaveProperty('key');
    expect(keys[0]).not.toHaveProperty('digest');

    const table = await munja('keys', 'list');
    expect(table.stdout).toContain(created.id);
    expect(table.stdout).toContain(`${created.key.slice(0, 13)}…${created.key.slice(-4)}`);
    expect(table.stdout).not.toContain(created.key);

    for (const file of readdirSync(dataDir)) {
      expect(readFileSync(join(dataDir, file)).includes(created.key), file).toBe(false);
    }
    const store = SqliteStore.open(dataDir);
    const found = await store.findKeyByDigest(digestApiKey(created.key, await store.keySecret()));
    await store.close();
    expect(found?.key.id).toBe(created.id);
  });

  it('prints the key on its own line with a will-not-be-shown-again hint', async () => {
    const run = await munja('keys', 'create', '--account', 'bob@example.com');
    expect(run.code).toBe(0);
    const keyLine = run.stdout.split('\n').find((line) => line.startsWith('sk_munja_'));
    expect(keyLine !== undefined && hasValidFormat(keyLine)).toBe(true);
    expect(run.stdout).toMatch(/not be shown again/);
  });

  it('revokes a key, and the list shows it revoked', async () => {
    const created = await munjaJson<CreatedJson>('keys', 'create', '--account', 'a@example.com');
    const revoked = await munjaJson<KeyJson>('keys', 'revoke', created.id);
    expect(revoked).toMatchObject({ id: created.id, status: 'revoked' });
    const [listed] = await munjaJson<KeyJson[]>('keys', 'list');
    expect(listed).toMatchObject({ id: created.id, status: 'revoked', revokedAt: revoked.revokedAt });
    expect((await munja('keys', 'list')).stdout).toMatch(/revoked/);
  });

  it('filters the list by account', async () => {
    await munjaJson('keys', 'create', '--account', 'a@example.com');
    const b = await munjaJson<CreatedJson>('keys', 'create', '--account', 'b@example.com');
    const listed = await munjaJson<KeyJson[]>('keys', 'list', '--account', 'B@example.com');
    expect(listed.map((key) => key.id)).toEqual([b.id]);
  });

  it('fails cleanly on unknown keys and accounts', async () => {
    expectCleanFailure(await munja('keys', 'revoke', 'key_000000000000000000000000'), 1, /no key with id key_0+/);
    expectCleanFailure(await munja('keys', 'list', '--account', 'nobody@example.com'), 1, /no account with email nobody@example.com/);
  });

  it('rejects bad arguments with a usage exit', async () => {
    const cases: [string[], RegExp][] = [
      [['keys', 'create'], /missing --account/],
      [['keys', 'create', '--account', 'not-an-email'], /invalid --account email 'not-an-email'/],
      [['keys', 'create', '--account', 'a@example.com', '--rpm', '0'], /--rpm must be a positive integer/],
      [['keys', 'create', '--account', 'a@example.com', '--rpm=-5'], /--rpm must be a positive integer/],
      [['keys', 'create', '--account', 'a@example.com', '--tpm', '1.5'], /--tpm must be a positive integer/],
      [['keys', 'create', '--account', 'a@example.com', '--tpm', 'lots'], /--tpm must be a positive integer/],
      [['keys', 'create', '--account', 'a@example.com', '--models', ''], /--models must list at least one/],
      [['keys', 'create', '--account', 'a@example.com', '--models', ' , '], /--models must list at least one/],
      [['keys', 'create', '--account', 'a@example.com', '--bogus'], /unknown option '--bogus'; 'munja keys create' takes --json, --account, --name, --models, --rpm, --tpm, --admin, --budget, --budget-period, --priority, --cache, --expires-at, --expires-in\nRun 'munja keys create --help' for usage/],
      [['keys', 'create', '--acount', 'a@example.com'], /^munja: unknown option '--acount'; did you mean '--account'\?\n/],
      [['keys', 'create', '--account'], /option '--account' needs a value/],
      [['keys', 'create', '--account', 'a@example.com', '--models', 'auto,gpt-4'], /--models: unknown model 'gpt-4'; the configured models are auto, default, pro, fast, hrllm/],
      [['keys', 'revoke'], /missing KEY_ID/],
      [['keys', 'revoke', 'key_a', 'key_b'], /unexpected argument 'key_b'/],
      [['keys', 'rotate'], /unknown keys subcommand 'rotate'/],
      [['keys'], /missing keys subcommand \(create, list, update or revoke\)\nRun 'munja keys --help' for usage/],
    ];
    const runs = await Promise.all(cases.map(([args]) => munja(...args)));
    runs.forEach((run, index) => expectCleanFailure(run, 2, cases[index]![1]));
    expect((await munjaJson<KeyJson[]>('keys', 'list'))).toEqual([]);
  });
});

describe('munja accounts', () => {
  it('creates an account once, then reports it exists', async () => {
    expect(await munjaJson<AccountJson>('accounts', 'create', 'Carol@Example.com'))
      .toMatchObject({ email: 'carol@example.com', status: 'active', isAdmin: false, created: true });
    expect(await munjaJson<AccountJson>('accounts', 'create', 'carol@example.com')).toMatchObject({ created: false });
    expect((await munja('accounts', 'create', 'carol@example.com')).stdout).toMatch(/already exists/);
  });

  it('suspends and resumes, visible to the key lookup', async () => {
    const created = await munjaJson<CreatedJson>('keys', 'create', '--account', 'a@example.com');
    expect(await munjaJson<AccountJson>('accounts', 'suspend', 'a@example.com')).toMatchObject({ status: 'suspended' });

    const store = SqliteStore.open(dataDir);
    const digest = digestApiKey(created.key, await store.keySecret());
    expect((await store.findKeyByDigest(digest))?.account.status).toBe('suspended');
    expect(await munjaJson<AccountJson>('accounts', 'resume', 'a@example.com')).toMatchObject({ status: 'active' });
    expect((await store.findKeyByDigest(digest))?.account.status).toBe('active');
    await store.close();
  });

  it('makes and unmakes admins', async () => {
    await munja('accounts', 'create', 'a@example.com');
    expect(await munjaJson<AccountJson>('accounts', 'admin', 'a@example.com')).toMatchObject({ isAdmin: true });
    expect(await munjaJson<AccountJson>('accounts', 'admin', 'a@example.com', '--revoke')).toMatchObject({ isAdmin: false });
  });

  it('fails cleanly on unknown accounts and bad arguments', async () => {
    expectCleanFailure(await munja('accounts', 'suspend', 'nobody@example.com'), 1, /no account with email nobody@example.com/);
    expectCleanFailure(await munja('accounts', 'admin', 'nobody@example.com'), 1, /no account/);
    expectCleanFailure(await munja('accounts', 'create'), 2, /missing EMAIL/);
    expectCleanFailure(await munja('accounts', 'create', 'nope'), 2, /invalid email 'nope'/);
    expectCleanFailure(await munja('accounts', 'create', 'a@example.com', '--revoke'), 2, /unknown option '--revoke'; 'munja accounts create' takes --json/);
    expectCleanFailure(await munja('accounts', 'delete', 'a@example.com'), 2, /unknown accounts subcommand 'delete'/);
  });
});

describe('munja help', () => {
  it('prints help on stdout with exit 0 at every level, for that level', async () => {
    const cases: [string[], RegExp, RegExp | null][] = [
      [['help'], /munja serve[\s\S]*munja keys create[\s\S]*munja accounts list[\s\S]*munja usage/, null],
      [['--help'], /munja keys revoke/, null],
      [['-h'], /munja keys revoke/, null],
      [['keys', '--help'], /munja keys create[\s\S]*munja keys list[\s\S]*munja keys revoke/, /accounts/],
      [['keys', 'create', '--help'], /munja keys create --account EMAIL/, /keys list/],
      [['keys', 'create', '--account', 'a@example.com', '--help'], /munja keys create/, /keys list/],
      [['help', 'keys', 'revoke'], /munja keys revoke KEY_ID/, /keys create/],
      [['accounts', '--help'], /munja accounts list[\s\S]*munja accounts password/, /keys create/],
      [['accounts', 'password', '-h'], /munja accounts password EMAIL/, /accounts list/],
      [['usage', '--help'], /munja usage \[--account EMAIL\] \[--days N\]/, /keys/],
      [['serve', '--help'], /munja serve/, /munja keys/],
    ];
    for (const [args, shows, hides] of cases) {
      const run = await munja(...args);
      expect(run.code, args.join(' ')).toBe(0);
      expect(run.stdout).toMatch(/^Usage: munja/);
      expect(run.stdout, args.join(' ')).toMatch(shows);
      if (hides) expect(run.stdout, args.join(' ')).not.toMatch(hides);
      if (args[0] !== 'serve') expect(run.stdout).toContain(`MUNJA_DATA   Data directory holding munja.db (default ${join(ROOT, 'data')})`);
    }
    // `serve --help` printed help: it did not start a server (which would not have exited).
    expect(readdirSync(join(dataDir, '..'))).toEqual([]);
  });

  it('prints the version', async () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
    for (const flag of ['--version', '-v', 'version']) expect(await munja(flag)).toMatchObject({ code: 0, stdout: `munja ${version}\n` });
  });

  it('exits 2 with usage on stderr for no or unknown commands', async () => {
    const none = await munja();
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^Usage: munja/);
    expectCleanFailure(await munja('frobnicate'), 2, /unknown command 'frobnicate'/);
  });

  it('suggests the command meant: serve for start, keys for a typo', async () => {
    expectCleanFailure(await munja('start'), 2, /unknown command 'start'; did you mean 'munja serve'\?/);
    expectCleanFailure(await munja('kyes', 'list'), 2, /unknown command 'kyes'; did you mean 'munja keys'\?/);
  });

  it('lists the settings of serve, every one the server reads', async () => {
    const run = await munja('help', 'serve');
    expect(run.code).toBe(0);
    for (const setting of ENVIRONMENT_SETTINGS) expect(run.stdout).toMatch(new RegExp(`^  ${setting.name} `, 'm'));
  });
});

describe('munja accounts list', () => {
  it('lists every account with its status, role and active keys', async () => {
    expect((await munja('accounts', 'list')).stdout).toBe('No accounts.\n');
    const created = await munjaJson<CreatedJson>('keys', 'create', '--account', 'a@example.com');
    await munjaJson('keys', 'create', '--account', 'a@example.com');
    await munjaJson('keys', 'revoke', created.id);
    await munjaJson('accounts', 'create', 'b@example.com');
    await munjaJson('accounts', 'admin', 'b@example.com');
    const listed = await munjaJson<(AccountJson & { activeKeys: number })[]>('accounts', 'list');
    expect(listed.map(({ email, isAdmin, activeKeys, status }) => ({ email, isAdmin, activeKeys, status }))).toEqual([
      { email: 'a@example.com', isAdmin: false, activeKeys: 1, status: 'active' },
      { email: 'b@example.com', isAdmin: true, activeKeys: 0, status: 'active' },
    ]);
    const table = (await munja('accounts', 'list')).stdout;
    expect(table).toMatch(/^EMAIL\s+ID\s+STATUS\s+ADMIN\s+ACTIVE KEYS\s+CREATED\n/);
    expect(table).toMatch(/b@example\.com\s+acct_\w+\s+active\s+yes\s+0/);
  });
});

describe('munja usage', () => {
  it('sums requests, tokens and spend per key over the last days, with the total', async () => {
    const a = await munjaJson<CreatedJson>('keys', 'create', '--account', 'a@example.com', '--name', 'backend');
    const b = await munjaJson<CreatedJson>('keys', 'create', '--account', 'b@example.com');
    const store = SqliteStore.open(dataDir);
    const today = new Date().toISOString().slice(0, 10);
    const longAgo = new Date(Date.now() - 40 * 86_400_000).toISOString().slice(0, 10);
    await store.addUsage([
      { keyId: a.id, day: today, model: 'model-a', requests: 3, promptTokens: 30, completionTokens: 300, costMicros: 1_500_000 },
      { keyId: b.id, day: today, model: 'model-a', requests: 1, promptTokens: 10, completionTokens: 1000, costMicros: 250 },
      { keyId: b.id, day: longAgo, model: 'model-a', requests: 100, promptTokens: 100, completionTokens: 100, costMicros: 0 },
    ]);
    await store.close();
    const all = await munjaJson<{ currency: string; keys: { id: string; requests: number }[]; total: Record<string, unknown> }>('usage');
    expect(all.currency).toBe('USD');
    expect(all.total).toEqual({ requests: 4, promptTokens: 40, completionTokens: 1300, costMicros: 1_500_250, cost: '1.500250' });
    expect(all.keys.map((key) => [key.id, key.requests])).toEqual([[a.id, 3], [b.id, 1]]);
    const onlyB = await munjaJson<{ total: Record<string, number> }>('usage', '--account', 'b@example.com', '--days', '60');
    expect(onlyB.total).toMatchObject({ requests: 101, promptTokens: 110, completionTokens: 1100, costMicros: 250 });
    const table = (await munja('usage')).stdout;
    expect(table).toMatch(/spend in USD/);
    expect(table).toMatch(new RegExp(`${a.id}\\s+backend\\s+a@example\\.com\\s+3\\s+30\\s+300\\s+1\\.500000`));
    expect(table).toMatch(/TOTAL\s+4\s+40\s+1,300\s+1\.500250/);
    expectCleanFailure(await munja('usage', '--days', '0'), 2, /--days must be a positive integer/);
    expectCleanFailure(await munja('usage', '--by', 'week'), 2, /--by must be one of key, model, account, day/);
  });

  it('sums per model, account or day with --by', async () => {
    const a = await munjaJson<CreatedJson>('keys', 'create', '--account', 'a@example.com');
    const b = await munjaJson<CreatedJson>('keys', 'create', '--account', 'b@example.com');
    const store = SqliteStore.open(dataDir);
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await store.addUsage([
      { keyId: a.id, day: today, model: 'small', requests: 2, promptTokens: 20, completionTokens: 2, costMicros: 40 },
      { keyId: a.id, day: yesterday, model: 'large', requests: 1, promptTokens: 10, completionTokens: 1, costMicros: 900 },
      { keyId: b.id, day: today, model: 'small', requests: 5, promptTokens: 50, completionTokens: 5, costMicros: 100 },
      { keyId: b.id, day: yesterday, model: '', requests: 7, promptTokens: 70, completionTokens: 7, costMicros: 0 },
    ]);
    await store.close();
    type Rows = Record<string, Array<Record<string, unknown>>>;
    const byModel = await munjaJson<Rows>('usage', '--by', 'model');
    expect(byModel.models!.map((row) => [row.model, row.requests, row.costMicros])).toEqual([[null, 7, 0], ['large', 1, 900], ['small', 7, 140]]);
    const byAccount = await munjaJson<Rows>('usage', '--by', 'account');
    expect(byAccount.accounts!.map((row) => [row.account, row.requests, row.cost])).toEqual([['a@example.com', 3, '0.000940'], ['b@example.com', 12, '0.000100']]);
    const byDay = await munjaJson<Rows>('usage', '--by', 'day', '--account', 'a@example.com');
    expect(byDay.days!.map((row) => [row.day, row.requests, row.costMicros])).toEqual([[yesterday, 1, 900], [today, 2, 40]]);
    const table = (await munja('usage', '--by', 'model')).stdout;
    expect(table).toMatch(/MODEL\s+REQUESTS\s+PROMPT TOKENS\s+COMPLETION TOKENS\s+COST/);
    expect(table).toMatch(/\(unknown\)\s+7\s+70\s+7\s+0\.000000/);
    expect(table).toMatch(/small\s+7\s+70\s+7\s+0\.000140/);
    expect(table).toMatch(/TOTAL\s+15\s+150\s+15\s+0\.001040/);
  });
});

describe('munja keys revoke', () => {
  it('says so when the key was already revoked', async () => {
    const created = await munjaJson<CreatedJson>('keys', 'create', '--account', 'a@example.com');
    expect((await munja('keys', 'revoke', created.id)).stdout).toMatch(/^Revoked key /);
    const again = await munja('keys', 'revoke', created.id);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^Key ${created.id} .* was already revoked at .*; nothing changed`));
    expect(await munjaJson('keys', 'revoke', created.id)).toMatchObject({ alreadyRevoked: true });
  });

  it('given the key itself, says it wants the id, and which one', async () => {
    const created = await munjaJson<CreatedJson>('keys', 'create', '--account', 'a@example.com');
    expectCleanFailure(await munja('keys', 'revoke', created.key), 2, new RegExp(`takes the key's id \\(key_…\\), not the key itself: run 'munja keys revoke ${created.id}'`));
    expectCleanFailure(await munja('keys', 'revoke', 'sk_munja_unknown'), 2, /not the key itself: 'munja keys list' shows/);
    expect((await munjaJson<KeyJson[]>('keys', 'list'))[0]).toMatchObject({ status: 'active' });
  });
});

describe('the data dir', () => {
  it('defaults to Munja’s own data/ whichever directory the CLI runs in', async () => {
    const script = "import('" + join(ROOT, 'src/config/load-config.ts') + "').then((m) => process.stdout.write(m.dataDirFrom({})))";
    const fromTmp = await new Promise<string>((resolve, reject) => execFile(NODE, ['-e', script], { cwd: tmpdir() }, (error, stdout) => (error ? reject(error) : resolve(stdout))));
    expect(fromTmp).toBe(join(ROOT, 'data'));
  });
});
