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

/** Busy (not idle, not iowait) and total clock ticks of the whole machine, from /proc/stat. */
export function machineTicks(): { busy: number; total: number } {
  const fields = (/^cpu +(.+)$/m.exec(readText('/proc/stat'))?.[1] ?? '').split(' ').map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user).
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  return { busy: total - (fields[3] ?? 0) - (fields[4] ?? 0), total };
}

/** The busy share of all cores (0–1) over the next `ms`. */
export async function machineBusyOver(ms: number): Promise<number> {
  const before = machineTicks();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = machineTicks();
  return (after.busy - before.busy) / Math.max(1, after.total - before.total);
}

/** CPU seconds a set of processes used between two readings, and how busy the machine was. */
export class CpuMeter {
  readonly #ticksPerSecond: number;
  readonly #pids: readonly number[];
  #before: number[] = [];
  #selfBefore: NodeJS.CpuUsage = process.cpuUsage();
  #machineBefore = machineTicks();

  constructor(ticksPerSecond: number, pids: readonly number[]) {
    this.#ticksPerSecond = ticksPerSecond;
    this.#pids = pids;
  }

  start(): void {
    this.#before = this.#pids.map(cpuTicks);
    this.#selfBefore = process.cpuUsage();
    this.#machineBefore = machineTicks();
  }

  /**
   * Seconds per watched PID (same order as given) and for this process (the load generator);
   * machineBusy is the busy share of all cores (0–1), whoever used them.
   */
  read(): { perPid: number[]; selfSeconds: number; machineBusy: number } {
    const perPid = this.#pids.map((pid, index) => (cpuTicks(pid) - (this.#before[index] ?? Number.NaN)) / this.#ticksPerSecond);
    const self = process.cpuUsage(this.#selfBefore);
    const machine = machineTicks();
    const machineBusy = (machine.busy - this.#machineBefore.busy) / (machine.total - this.#machineBefore.total);
    return { perPid, selfSeconds: (self.user + self.system) / 1e6, machineBusy };
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
