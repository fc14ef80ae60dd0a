// Codex CLI (`codex exec`, a custom provider on the Responses API) completes a turn against the
// built-in engine, in a throwaway directory with its most restrictive sandbox (read-only) and
// approval policy (never). The engine calls Codex's tools as it would any client's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type CliRun, runCli } from '../helpers/run-cli.ts';

const CODEX = join(import.meta.dirname, '../../node_modules/.bin/codex');

let gateway: TestGateway;
let key: string;
let keyId: string;
let home: string;

beforeAll(async () => {
  gateway = await startGateway();
  ({ key, id: keyId } = await gateway.createKey());
  home = mkdtempSync(join(tmpdir(), 'munja-codex-'));
});
afterAll(async () => {
  await gateway.close();
  rmSync(home, { recursive: true, force: true });
});

function codexExec(prompt: string): Promise<CliRun> {
  const provider = `model_providers.munja={name="Munja",base_url="${gateway.baseURL}",env_key="MUNJA_KEY",wire_api="responses"}`;
  const args = ['exec', '--skip-git-repo-check', '--ephemeral', '--sandbox', 'read-only', '-c', 'approval_policy="never"', '-m', 'fast', '-c', 'model_provider=munja', '-c', provider, prompt];
  return runCli(CODEX, args, home, { HOME: home, CODEX_HOME: home, MUNJA_KEY: key });
}

it('completes a turn with codex exec', async () => {
  const { code, stdout, stderr } = await codexExec('say hi');
  expect(code, stderr).toBe(0);
  expect(stdout.trim().length, stderr).toBeGreaterThan(0);
  const today = new Date().toISOString().slice(0, 10);
  // Usage is written once a second.
  await vi.waitFor(async () => expect((await gateway.app.store.usageByDay([keyId], today, today))[0]?.requests).toBeGreaterThanOrEqual(1), { timeout: 5_000 });
}, 60_000);
