// What a report says about the run itself: the commit, the versions of everything measured, the
// machine and the settings.
import { nginxVersion } from './peer/nginx.ts';
import { portkeyVersion } from './peer/portkey.ts';
import type { StopOutcome } from './processes.ts';
import { tryCommand } from './processes.ts';
import type { Machine } from './proc-stats.ts';
import type { Settings } from './settings.ts';

export interface Versions {
  readonly node: string;
  readonly nginx: string | undefined;
  readonly portkey: string | undefined;
  readonly wrk: string | undefined;
}

export interface RunInfo {
  readonly date: string;
  readonly machine: Machine;
  readonly versions: Versions;
  readonly commit: string;
  readonly settings: Settings;
  readonly tool: 'wrk' | 'autocannon';
  readonly pinned: boolean;
  /** Busy share of all cores during one second before anything started: other work on the machine. */
  readonly backgroundBusy: number;
  readonly loadAverage: readonly number[];
  /** Share of all CPU time the hypervisor gave to other machines over the whole run. */
  readonly steal: number;
  readonly wallSeconds: number;
  readonly stops: readonly StopOutcome[];
}

export async function collectVersions(): Promise<Versions> {
  // `wrk -v` prints its banner and exits 1: read it through a shell.
  const wrkBanner = await tryCommand('sh', ['-c', 'wrk -v 2>&1; true']);
  return {
    node: process.version,
    nginx: await nginxVersion(),
    portkey: portkeyVersion(),
    wrk: wrkBanner === undefined || !wrkBanner.startsWith('wrk') ? undefined : /^wrk (\S+)/.exec(wrkBanner)?.[1],
  };
}

/** `abc1234`, plus what differs from it in tracked files (the report and plots, rewritten by every run, do not count). */
export async function commitDescription(root: string): Promise<string> {
  const commit = (await tryCommand('git', ['rev-parse', '--short', 'HEAD'], root)) ?? 'unknown';
  // --no-optional-locks: a bench must not write the index while someone else works in the tree.
  const status = await tryCommand('git', ['--no-optional-locks', 'status', '--porcelain', '--untracked-files=no'], root);
  const changed = (status ?? '')
    .split('\n')
    .map((line) => line.trim().replace(/^\S+\s+/, ''))
    .filter((path) => path !== '' && path !== 'bench/REPORT.md' && !path.startsWith('docs/bench/'));
  if (changed.some((path) => !path.startsWith('bench/'))) return `${commit} (dirty)`;
  return changed.length > 0 ? `${commit} (with uncommitted changes in bench/)` : commit;
}
