// What the CLI talks to, injected so tests and the server entry can supply their own streams.

export interface CliOutput {
  write(chunk: string): unknown;
}

export interface CliIo {
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where `accounts password` reads the password from (never an argument: it would land in shell history). */
  readonly stdin?: AsyncIterable<string | Buffer> & { readonly isTTY?: boolean };
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1; // not found, or the operation failed
export const EXIT_USAGE = 2;

/** An expected failure: its message goes to stderr as is, without a stack trace. */
export class CliError extends Error {
  readonly exitCode: number;
  /** For a usage error: the help topic to point at (`keys create`), '' for all of `munja help`. */
  readonly helpTopic: string;

  constructor(exitCode: number, message: string, helpTopic = '') {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
    this.helpTopic = helpTopic;
  }
}

export function usageError(message: string, helpTopic = ''): CliError {
  return new CliError(EXIT_USAGE, message, helpTopic);
}

export function notFound(message: string): CliError {
  return new CliError(EXIT_FAILURE, message);
}

export function writeJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
