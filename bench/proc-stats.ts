// Per-process readings from /proc (Linux): CPU time (all threads: the piscina engine threads
// count towards Munja) and resident memory.
import { readFileSync } from 'node:fs';
import { tryCommand } from './processes.ts';

/** Clock ticks per second, the unit of utime/stime in /proc/<pid>/stat. */
export async function clockTicksPerSecond(): Promise<number> {
  const answer = Number(await tryCommand('getconf', ['CLK_TCK']));
  return Number.isInteger(answer) && answer > 0 ? answer : 100;
}

/** utime + stime of the whole process in clock ticks, or NaN once it is gone. */
export function cpuTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    // Then field 3 (state) is index 0, so utime (field 14) is index 11 and stime (15) index 12.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return Number.NaN;
  }
}

/** VmRSS in bytes, or NaN once the process is gone. */
export function rssBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds a set of processes used between two readings. */
export class CpuMeter {
  readonly #ticksPerSecond: number;
  readonly #pids: readonly number[];
  #before: number[] = [];
  #selfBefore: NodeJS.CpuUsage = process.cpuUsage();

  constructor(ticksPerSecond: number, pids: readonly number[]) {
    this.#ticksPerSecond = ticksPerSecond;
    this.#pids = pids;
  }

  start(): void {
    this.#before = this.#pids.map(cpuTicks);
    this.#selfBefore = process.cpuUsage();
  }

  /** Seconds per watched PID (same order as given), and for this process (the load generator). */
  read(): { perPid: number[]; selfSeconds: number } {
    const perPid = this.#pids.map((pid, index) => (cpuTicks(pid) - (this.#before[index] ?? Number.NaN)) / this.#ticksPerSecond);
    const self = process.cpuUsage(this.#selfBefore);
    return { perPid, selfSeconds: (self.user + self.system) / 1e6 };
  }
}

export interface Machine {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly kernel: string;
  readonly glibc: string;
}

export function describeMachine(): Machine {
  const cpuinfo = readText('/proc/cpuinfo');
  const models = [...cpuinfo.matchAll(/^model name\s*:\s*(.+)$/gm)].map((match) => match[1]!.trim());
  const memKb = Number(/^MemTotal:\s+(\d+) kB$/m.exec(readText('/proc/meminfo'))?.[1] ?? Number.NaN);
  const osName = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readText('/etc/os-release'))?.[1] ?? 'unknown';
  const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string; osRelease?: string } };
  return {
    cpuModel: models[0] ?? 'unknown',
    cores: models.length,
    memoryGiB: Math.round((memKb / 1024 / 1024) * 10) / 10,
    os: osName,
    kernel: report.header?.osRelease ?? 'unknown',
    glibc: report.header?.glibcVersionRuntime ?? 'unknown',
  };
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
