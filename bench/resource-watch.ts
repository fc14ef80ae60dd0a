// What a process tree (a proxy: nginx's master and worker, Munja and its cluster workers) uses
// while a load runs: CPU seconds from /proc, peak and final resident memory sampled as it goes, and
// how busy each CPU of the machine was (by anyone) meanwhile.
import { cpuTicks, machineTicks, perCpuBusy, perCpuTicks, processTree, rssBytes, stealShare } from './proc-stats.ts';

const RSS_SAMPLE_MS = 200;

export interface Usage {
  readonly cpuSeconds: number;
  readonly peakRssBytes: number;
  readonly endRssBytes: number;
  /** Busy share (0–1) of each CPU over the watched time; index 0 is cpu0. */
  readonly cpuBusy: readonly number[];
  /** Share (0–1) of the machine's CPU time the hypervisor gave to other machines meanwhile. */
  readonly steal: number;
}

export class ResourceWatch {
  readonly #ticksPerSecond: number;
  readonly #roots: readonly number[];
  #pids: number[] = [];
  #ticksBefore = 0;
  #cpusBefore = perCpuTicks();
  #machineBefore = machineTicks();
  #peakRss = 0;
  #timer: NodeJS.Timeout | undefined;

  /** `roots`: the processes whose trees count (none: only the machine-wide figures). */
  constructor(ticksPerSecond: number, roots: readonly number[]) {
    this.#ticksPerSecond = ticksPerSecond;
    this.#roots = roots;
  }

  start(): void {
    this.#pids = this.#roots.flatMap(processTree);
    this.#ticksBefore = this.#ticks();
    this.#cpusBefore = perCpuTicks();
    this.#machineBefore = machineTicks();
    this.#peakRss = this.#rss();
    this.#timer = setInterval(() => {
      this.#peakRss = Math.max(this.#peakRss, this.#rss());
    }, RSS_SAMPLE_MS);
  }

  stop(): Usage {
    clearInterval(this.#timer);
    const endRss = this.#rss();
    return {
      cpuSeconds: (this.#ticks() - this.#ticksBefore) / this.#ticksPerSecond,
      peakRssBytes: Math.max(this.#peakRss, endRss),
      endRssBytes: endRss,
      cpuBusy: perCpuBusy(this.#cpusBefore, perCpuTicks()),
      steal: stealShare(this.#machineBefore, machineTicks()),
    };
  }

  #ticks(): number {
    let sum = 0;
    for (const pid of this.#pids) {
      const ticks = cpuTicks(pid);
      if (Number.isFinite(ticks)) sum += ticks;
    }
    return sum;
  }

  #rss(): number {
    let sum = 0;
    for (const pid of this.#pids) {
      const rss = rssBytes(pid);
      if (Number.isFinite(rss)) sum += rss;
    }
    return sum;
  }
}

/** Resident memory of a whole process tree. */
export function treeRssBytes(root: number): number {
  return processTree(root).reduce((sum, pid) => sum + (Number.isFinite(rssBytes(pid)) ? rssBytes(pid) : 0), 0);
}
