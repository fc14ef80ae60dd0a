// One part of `npm run bench` run alone (the cache or tracing rounds): a scratch directory, the
// mock and the load generator pinned to CPU 0 and the part's processes to CPU 1 where the machine
// allows, the part's markdown table printed with the machine's state, and every process stopped
// (also on Ctrl-C).
import type { RunContext } from './closed-loop.ts';
import { say } from './phases.ts';
import { benchScratch, canPin, pinSelf } from './processes.ts';
import { clockTicksPerSecond, machineBusyOver } from './proc-stats.ts';
import { collectVersions } from './run-info.ts';
import { startMock } from './stack.ts';

export interface PartPlace {
  readonly tempDir: string;
  readonly mockPort: number;
  /** The CPU of the processes under test; undefined when nothing is pinned. */
  readonly cpus: string | undefined;
}

export async function runPartAlone(scratchPrefix: string, part: (place: PartPlace, context: RunContext) => Promise<string>): Promise<void> {
  const { tempDir, cleanUp } = benchScratch(scratchPrefix);
  try {
    const busy = await machineBusyOver(1_000);
    const pinned = (await canPin()) && (await pinSelf('0'));
    const versions = await collectVersions();
    const context: RunContext = { tool: versions.wrk === undefined ? 'autocannon' : 'wrk', tempDir, ticksPerSecond: await clockTicksPerSecond(), loaderCpus: pinned ? '0' : undefined };
    const mock = await startMock(pinned ? '0' : undefined);
    const table = await part({ tempDir, mockPort: mock.port, cpus: pinned ? '1' : undefined }, context);
    say(`\n${table}\n\nMachine busy before the run: ${Math.round(busy * 100)} %; pinned: ${pinned}; load generator: ${context.tool}.\n`);
  } finally {
    await cleanUp();
  }
}
