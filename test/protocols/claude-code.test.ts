// Claude Code (`claude -p` with ANTHROPIC_BASE_URL) completes a turn against the built-in engine on
// the Messages API, in a throwaway directory with its most restrictive settings for a run nobody
// watches: the default permission mode with no one to answer a prompt (anything that would ask is
// denied). The engine calls Claude Code's tools as it would any client's. Both ways of giving the key.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type CliRun, runCli } from '../helpers/run-cli.ts';

const CLAUDE = join(import.meta.dirname, '../../node_modules/.bin/claude');

let gateway: TestGateway;
let key: string;
let keyId: string;
let home: string;

beforeAll(async () => {
  gateway = await startGateway();
  ({ key, id: keyId } = await gateway.createKey());
  home = mkdtempSync(join(tmpdir(), 'munja-claude-'));
});
afterAll(async () => {
  await gateway.close();
  rmSync(home, { recursive: true, force: true });
});

function claude(prompt: string, keyEnv: Record<string, string>): Promise<CliRun> {
  const args = ['-p', prompt, '--model', 'fast', '--permission-mode', 'default', '--permission-prompts', 'none'];
  return runCli(CLAUDE, args, home, { HOME: home, ANTHROPIC_BASE_URL: gateway.origin, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', ...keyEnv });
}

async function requestsToday(): Promise<number> {
  const today = new Date().toISOString().slice(0, 10);
  return (await gateway.app.store.usageByDay([keyId], today, today))[0]?.requests ?? 0;
}

describe('claude -p', () => {
  it.each([
    ['ANTHROPIC_API_KEY (sent as x-api-key)', 'ANTHROPIC_API_KEY'],
    ['ANTHROPIC_AUTH_TOKEN (sent as a bearer token)', 'ANTHROPIC_AUTH_TOKEN'],
  ])('completes a turn with the key in %s', async (_label, variable) => {
    const before = await requestsToday();
    const { code, stdout, stderr } = await claude('say hi', { [variable]: key });
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    expect(stdout.trim().length, stderr).toBeGreaterThan(0);
    // Usage is written once a second.
    await vi.waitFor(async () => expect(await requestsToday()).toBeGreaterThan(before), { timeout: 5_000 });
  }, 90_000);
});
