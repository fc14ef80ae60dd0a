#!/usr/bin/env node
// The operator CLI: `munja serve`, `munja keys …`, `munja accounts …`.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { accountsCommand } from './accounts-command.ts';
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, type CliIo } from './cli-io.ts';
import { keysCommand } from './keys-command.ts';
import { USAGE } from './usage.ts';

async function dispatch(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'help':
    case '--help':
    case '-h':
      io.stdout.write(USAGE);
      return EXIT_OK;
    case 'keys':
      return keysCommand(rest, io);
    case 'accounts':
      return accountsCommand(rest, io);
    case 'serve': {
      const { serve } = await import('../main.ts');
      return serve(io);
    }
    case undefined:
      io.stderr.write(USAGE);
      return EXIT_USAGE;
    default:
      throw new CliError(EXIT_USAGE, `unknown command '${command}'`);
  }
}

/** Runs one CLI invocation and returns its exit code; expected failures never throw. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (error) {
    if (error instanceof CliError) {
      io.stderr.write(`munja: ${error.message}\n`);
      if (error.exitCode === EXIT_USAGE) io.stderr.write("Run 'munja help' for usage.\n");
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

if (isEntryPoint()) {
  const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, stdin: process.stdin });
  // A failure exits at once: a server that failed half-way still holds sockets and threads that
  // would keep the process alive. (Writes to pipes and files are synchronous here: nothing is lost.)
  if (code !== EXIT_OK) process.exit(code);
}
