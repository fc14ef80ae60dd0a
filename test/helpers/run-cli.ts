// Runs a command-line client to its end, its output collected: for the agent CLIs the protocol
// tests drive against a gateway.
import { spawn } from 'node:child_process';

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `env` is the whole environment (PATH is added): nothing of the test process's own leaks in. A run
 * still going after `killAfterMs` is killed (code null), so that a test sees what it printed.
 */
export function runCli(command: string, args: readonly string[], cwd: string, env: Readonly<Record<string, string>>, killAfterMs = 80_000): Promise<CliRun> {
  const child = spawn(command, args, { cwd, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: killAfterMs });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
