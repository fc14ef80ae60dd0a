// `munja reload`: asks the server running on this machine to reload its config, by SIGHUP to the
// process its pid file names (MUNJA_DATA/munja.pid), or to --pid. No key is needed: being allowed
// to signal the process is the permission.
import { readFileSync } from 'node:fs';
import { dataDirFrom } from '../config/load-config.ts';
import { pidFilePath } from '../lifecycle/pid-file.ts';
import { expectPositionals, parseCommandArgs } from './arguments.ts';
import { CliError, EXIT_FAILURE, EXIT_OK, usageError, writeJson, type CliIo } from './cli-io.ts';

export function reloadCommand(args: string[], io: CliIo): number {
  const { values, positionals } = parseCommandArgs(args, { pid: { type: 'string' }, json: { type: 'boolean' } }, 'reload');
  expectPositionals(positionals, [], 'reload');
  const pid = values.pid === undefined ? pidFromFile(pidFilePath(dataDirFrom(io.env))) : parsePid(values.pid);
  signal(pid);
  if (values.json) writeJson(io, { pid, signal: 'SIGHUP' });
  else io.stdout.write(`Asked the server (pid ${pid}) to reload its config; its log says whether it was applied.\n`);
  return EXIT_OK;
}

function parsePid(raw: string): number {
  const pid = Number(raw);
  if (!Number.isSafeInteger(pid) || pid < 2) throw usageError(`--pid must be a process id, got '${raw}'`, 'reload');
  return pid;
}

function pidFromFile(path: string): number {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new CliError(EXIT_FAILURE, `No server found: ${path} does not exist (is munja serve running with this MUNJA_DATA? Else give --pid).`);
  }
  const pid = Number(text.trim());
  if (!Number.isSafeInteger(pid) || pid < 2) throw new CliError(EXIT_FAILURE, `${path} does not hold a process id.`);
  return pid;
}

function signal(pid: number): void {
  if (!isMunja(pid)) throw new CliError(EXIT_FAILURE, `Process ${pid} is not a munja server (a stale pid file?); nothing was signalled.`);
  try {
    process.kill(pid, 'SIGHUP');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(EXIT_FAILURE, code === 'ESRCH' ? `No process ${pid} (the server has stopped; a stale pid file?).` : `Cannot signal process ${pid} (${code ?? 'error'}).`);
  }
}

/** Where /proc tells (Linux), whether the process is munja: a pid file outlives a crash, and its id may be reused. */
function isMunja(pid: number): boolean {
  let commandLine: string;
  try {
    commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    // No such process (ESRCH follows from kill), or no /proc here: the signal decides.
    return true;
  }
  return commandLine.includes('munja');
}
