// `munja accounts password EMAIL` (password on standard input) lets a CLI-made account, such as
// the first-start admin, sign in to the dashboard.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { DashboardClient } from '../helpers/dashboard-client.ts';
import { startGateway } from '../helpers/gateway.ts';

const dir = mkdtempSync(join(tmpdir(), 'munja-password-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function munja(args: string[], input: string) {
  return spawnSync(process.execPath, ['src/cli/munja.ts', ...args], { env: { ...process.env, MUNJA_DATA: dir }, input });
}

describe('munja accounts password', () => {
  it('sets a password the dashboard accepts, and refuses a short one or an unknown account', async () => {
    execFileSync(process.execPath, ['src/cli/munja.ts', 'accounts', 'create', 'ops@example.com'], { env: { ...process.env, MUNJA_DATA: dir } });
    const short = munja(['accounts', 'password', 'ops@example.com'], 'short\n');
    expect(short.status).toBe(1);
    expect(short.stderr.toString()).toContain('at least 10 characters');
    expect(munja(['accounts', 'password', 'nobody@example.com'], 'a long enough password\n').status).toBe(1);
    const set = munja(['accounts', 'password', 'ops@example.com', '--json'], 'a long enough password\n');
    expect(set.status, set.stderr.toString()).toBe(0);
    expect(JSON.parse(set.stdout.toString()).email).toBe('ops@example.com');

    const gateway = await startGateway(undefined, { dataDir: dir });
    try {
      expect((await new DashboardClient(gateway.origin).signIn('ops@example.com', 'a long enough password')).status).toBe(200);
      expect((await new DashboardClient(gateway.origin).signIn('ops@example.com', 'a long enough passworD')).status).toBe(401);
    } finally {
      await gateway.close();
    }
  });

  it('still reaches an account whose address predates the address rules, and it signs in', async () => {
    // As an older munja stored it: its plausibility check let a display name through.
    const db = new DatabaseSync(join(dir, 'munja.db'));
    db.prepare(`INSERT INTO accounts (id, email, mailbox, status, is_admin, created_at) VALUES (?, ?, ?, 'active', 0, ?)`)
      .run('acct_000000000000000000000old', 'one<old@example.com>', 'one<old@example.com>', Date.now());
    db.close();
    expect(munja(['accounts', 'create', 'two<new@example.com>'], '').status).toBe(2);
    const set = munja(['accounts', 'password', 'one<old@example.com>'], 'an old account password\n');
    expect(set.status, set.stderr.toString()).toBe(0);
    expect(munja(['accounts', 'suspend', 'one<old@example.com>'], '').status).toBe(0);
    expect(munja(['accounts', 'resume', 'one<old@example.com>'], '').status).toBe(0);
    const gateway = await startGateway(undefined, { dataDir: dir });
    try {
      expect((await new DashboardClient(gateway.origin).signIn('one<old@example.com>', 'an old account password')).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });

  it('ends every dashboard session of the account', async () => {
    const gateway = await startGateway(undefined, { dataDir: dir });
    try {
      const sessions = [new DashboardClient(gateway.origin), new DashboardClient(gateway.origin)];
      for (const client of sessions) expect((await client.signIn('ops@example.com', 'a long enough password')).status).toBe(200);
      await gateway.app.store.createAccount('other@example.com');
      expect(munja(['accounts', 'password', 'other@example.com'], 'another long password\n').status).toBe(0);
      for (const client of sessions) expect((await client.call('GET', '/dashboard/api/me')).status).toBe(200);

      const changed = munja(['accounts', 'password', 'ops@example.com'], 'a different long password\n');
      expect(changed.status, changed.stderr.toString()).toBe(0);
      for (const client of sessions) expect((await client.call('GET', '/dashboard/api/me')).status).toBe(401);
      expect((await new DashboardClient(gateway.origin).signIn('ops@example.com', 'a different long password')).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});
