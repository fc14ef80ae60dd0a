// Per-process readings from /proc (Linux): CPU time (all threads: the piscina engine threads
// count towards Munja) and resident memory.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
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

/**
 * CPU time of the whole process in nanoseconds, from each thread's schedstat: clock ticks (10 ms)
 * are too coarse for a run in which a proxy uses only tens of milliseconds. NaN once it is gone.
 */
export function cpuNanoseconds(pid: number): number {
  const tasks = safeReaddir(`/proc/${pid}/task`);
  if (tasks.length === 0) return Number.NaN;
  let sum = 0;
  for (const task of tasks) {
    const onCpu = Number(readText(`/proc/${pid}/task/${task}/schedstat`).split(' ')[0]);
    if (Number.isFinite(onCpu)) sum += onCpu; // a thread that ended meanwhile reads as ''
  }
  return sum;
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

/**
 * Clock ticks of the whole machine from /proc/stat: busy (not idle, iowait or steal), steal (time
 * the hypervisor gave this virtual machine's CPUs to someone else) and the total.
 */
export function machineTicks(): Ticks {
  return ticksOf(/^cpu +(.+)$/m.exec(readText('/proc/stat'))?.[1]);
}

/** The same per CPU: index 0 is cpu0. */
export function perCpuTicks(): Ticks[] {
  return [...readText('/proc/stat').matchAll(/^cpu(\d+) +(.+)$/gm)].map((match) => ticksOf(match[2]));
}

export interface Ticks {
  readonly busy: number;
  readonly steal: number;
  readonly total: number;
}

function ticksOf(line: string | undefined): Ticks {
  const fields = (line ?? '').split(' ').map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user).
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const steal = fields[7] ?? 0;
  return { busy: total - (fields[3] ?? 0) - (fields[4] ?? 0) - steal, steal, total };
}

/** The share (0–1) of all CPU time the hypervisor took away between two machineTicks() readings. */
export function stealShare(before: Ticks, after: Ticks): number {
  return (after.steal - before.steal) / Math.max(1, after.total - before.total);
}

/** Busy share (0–1) of each CPU between two perCpuTicks() readings. */
export function perCpuBusy(before: readonly Ticks[], after: readonly Ticks[]): number[] {
  return after.map((now, index) => (now.busy - (before[index]?.busy ?? 0)) / Math.max(1, now.total - (before[index]?.total ?? 0)));
}

/** `pid` and every process below it (nginx's worker, Munja's cluster workers), from each process's parent in /proc. */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const name of safeReaddir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readText(`/proc/${name}/stat`);
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const children = parents.get(parent) ?? [];
    children.push(Number(name));
    parents.set(parent, children);
  }
  const tree = [pid];
  for (let index = 0; index < tree.length; index++) tree.push(...(parents.get(tree[index]!) ?? []));
  return tree;
}

/** Open file descriptors of a process, or NaN once it is gone. */
export function fdCount(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return Number.NaN;
  }
}

/**
 * How many of the process's descriptors are TCP connections to 127.0.0.1:`port` (connections
 * kept alive in an upstream pool), from /proc/net/tcp and the process's fd links.
 */
export function connectionsTo(pid: number, port: number): number {
  const remote = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const line of readText(`/proc/${pid}/net/tcp`).split('\n').slice(1)) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
    const fields = line.trim().split(/\s+/);
    if (fields[2] === remote && fields[3] === '01') inodes.add(fields[9]!);
  }
  let count = 0;
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode !== undefined && inodes.has(inode)) count++;
      } catch {
        // closed while we looked
      }
    }
  } catch {
    return Number.NaN;
  }
  return count;
}

/** The soft limit on open files of a process (from /proc/<pid>/limits). */
export function openFileLimit(pid: number): number {
  return Number(/^Max open files\s+(\d+)/m.exec(readText(`/proc/${pid}/limits`))?.[1] ?? Number.NaN);
}

function safeReaddir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** The busy share of all cores (0–1) over the next `ms`. */
export async function machineBusyOver(ms: number): Promise<number> {
  const before = machineTicks();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = machineTicks();
  return (after.busy - before.busy) / Math.max(1, after.total - before.total);
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
