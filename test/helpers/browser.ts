// Debian's Chromium driven by playwright-core: never a downloaded browser. Each launch gets a fresh
// profile directory; closing stops the browser and then kills, by PID, any process still running
// with that profile, so no test run leaves a Chromium behind.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run',
];

export interface TestBrowser {
  readonly context: BrowserContext;
  /** The profile directory, which every process of this browser names on its command line. */
  readonly profile: string;
  close(): Promise<void>;
}

export async function launchBrowser(options: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' } = {}): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's Chromium (apt-get install chromium)`);
  const profile = mkdtempSync(join(tmpdir(), 'munja-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: options.viewport ?? { width: 1280, height: 860 },
    colorScheme: options.colorScheme ?? 'light',
    timeout: 30_000,
  });
  return {
    context,
    profile,
    async close() {
      await context.close().catch(() => {});
      killLeftovers(profile);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** PIDs of the processes whose command line names `profile`: the ones one launch started. */
export function processesUsing(profile: string): number[] {
  const listing = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  const pids: number[] = [];
  for (const line of listing.split('\n')) {
    const match = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (match && match[2]!.includes(profile) && Number(match[1]) !== process.pid) pids.push(Number(match[1]));
  }
  return pids;
}

function killLeftovers(profile: string): void {
  for (const pid of processesUsing(profile)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
