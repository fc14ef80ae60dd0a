#!/usr/bin/env node
// The operator CLI: `munja serve`, `munja keys …`, `munja accounts …`, `munja usage`, `munja audit`, `munja cache purge`, `munja reload`.
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { accountsCommand } from './accounts-command.ts';
import { cacheCommand } from './cache-command.ts';
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, usageError, type CliIo } from './cli-io.ts';
import { keysCommand } from './keys-command.ts';
import { reloadCommand } from './reload-command.ts';
import { usageCommand } from './usage-command.ts';
import { auditCommand } from './audit-command.ts';
import { commandMeant, helpText, isHelpTopic } from './usage.ts';

const HELP_FLAGS = new Set(['--help', '-h']);

async function dispatch(argv: string[], io: CliIo): Promise<number> {
  const topic = helpTopic(argv);
  if (topic !== null) {
    io.stdout.write(helpText(topic));
    return EXIT_OK;
  }
  const [command, ...rest] = argv;
  switch (command) {
    case '--version':
    case '-v':
    case 'version':
      io.stdout.write(`munja ${version()}\n`);
      return EXIT_OK;
    case 'keys':
      return keysCommand(rest, io);
    case 'accounts':
      return accountsCommand(rest, io);
    case 'usage':
      return usageCommand(rest, io);
    case 'audit':
      return auditCommand(rest, io);
    case 'cache':
      return cacheCommand(rest, io);
    case 'reload':
      return reloadCommand(rest, io);
    case 'serve': {
      if (rest.length > 0) throw usageError(`serve takes no arguments, got '${rest[0]}'; its settings come from the environment`, 'serve');
      const { serve } = await import('../main.ts');
      return serve(io);
    }
    case undefined:
      io.stderr.write(helpText());
      return EXIT_USAGE;
    default: {
      const meant = commandMeant(command);
      throw usageError(`unknown command '${command}'${meant === undefined ? '' : `; did you mean 'munja ${meant}'?`}`);
    }
  }
}

/**
 * `help [COMMAND…]`, or --help / -h anywhere before `--`: the most specific topic the words before
 * it name (`keys create --account x --help` → 'keys create'). Null when no help was asked for.
 */
function helpTopic(argv: string[]): string | null {
  const end = argv.indexOf('--');
  const args = end === -1 ? argv : argv.slice(0, end);
  let words: string[];
  if (args[0] === 'help') words = args.slice(1);
  else if (args.some((arg) => HELP_FLAGS.has(arg))) words = args.filter((arg) => !arg.startsWith('-'));
  else return null;
  for (let count = Math.min(words.length, 2); count > 0; count--) {
    const topic = words.slice(0, count).join(' ');
    if (isHelpTopic(topic)) return topic;
  }
  return '';
}

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

/** Runs one CLI invocation and returns its exit code; expected failures never throw. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (error) {
    if (error instanceof CliError) {
      io.stderr.write(`munja: ${error.message}\n`);
      if (error.exitCode === EXIT_USAGE) io.stderr.write(`Run 'munja ${error.helpTopic === '' ? 'help' : `${error.helpTopic} --help`}' for usage.\n`);
      return error.exitCode;
    }
    io.stderr.write(`munja: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_FAILURE;
  }
}

function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    // npm links bins, so compare real paths.
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/** The CLI on this process's arguments and streams (bin/munja.cjs calls it after checking Node's version). */
export async function main(): Promise<void> {
  const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, stdin: process.stdin });
  // A failure exits at once: a server that failed half-way still holds sockets and threads that
  // would keep the process alive. (Writes to pipes and files are synchronous here: nothing is lost.)
  if (code !== EXIT_OK) process.exit(code);
}

if (isEntryPoint()) await main();
