// Claude Code (`claude -p` with ANTHROPIC_BASE_URL) completes a turn against the built-in engine on
// the Messages API, in a throwaway directory with its most restrictive settings for a run nobody
// watches: the default permission mode with no one to answer a prompt (anything that would ask is
// denied). The engine calls Claude Code's tools as it would any client's. Both ways of giving the key,
// each run in a home of its own. Claude Code's own background work (background tasks, auto memory)
// is off: a run in a full suite printed its answer and was still running 80 s later, doing what is
// not known; a failure now says how many requests the run made.
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
const homes: string[] = [];

beforeAll(async () => {
  gateway = await startGateway();
  ({ key, id: keyId } = await gateway.createKey());
});
afterAll(async () => {
  await gateway.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function claude(prompt: string, keyEnv: Record<string, string>): Promise<CliRun> {
  const home = mkdtempSync(join(tmpdir(), 'munja-claude-'));
  homes.push(home);
  const args = ['-p', prompt, '--model', 'fast', '--permission-mode', 'default', '--permission-prompts', 'none'];
  return runCli(CLAUDE, args, home, {
    HOME: home,
    ANTHROPIC_BASE_URL: gateway.origin,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: '1',
    CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1',
    ...keyEnv,
  });
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
    // Usage is written once a second: wait for it before saying how many requests the run made.
    await new Promise((resolve) => setTimeout(resolve, code === 0 ? 0 : 1_500));
    expect(code, `${stdout}\n${stderr}\n(requests the run made: ${(await requestsToday()) - before})`).toBe(0);
    expect(stdout.trim().length, stderr).toBeGreaterThan(0);
    // Usage is written once a second.
    await vi.waitFor(async () => expect(await requestsToday()).toBeGreaterThan(before), { timeout: 5_000 });
  }, 90_000);
});
