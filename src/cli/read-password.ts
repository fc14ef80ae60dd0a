// The password for `accounts password`: from a pipe as is, or typed at a terminal without echo
// (asked twice). Never an argument: it would land in the shell history and in `ps`.
import { CliError, EXIT_FAILURE, usageError, type CliIo } from './cli-io.ts';

type Terminal = NonNullable<CliIo['stdin']> & {
  setRawMode?(raw: boolean): unknown;
  on?(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  off?(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  pause?(): unknown;
  resume?(): unknown;
};

const CTRL_C = '\u0003';
const CTRL_D = '\u0004';
const BACKSPACES = new Set(['\u007f', '\b']);

export async function readPassword(io: CliIo): Promise<string> {
  const stdin = io.stdin as Terminal | undefined;
  if (stdin === undefined) throw usageError("pipe the password on standard input, e.g. printf '%s' \"$PASSWORD\" | munja accounts password EMAIL");
  if (!stdin.isTTY) {
    let text = '';
    for await (const chunk of stdin) text += chunk.toString();
    // One trailing newline (from echo or a file) is not part of the password.
    return text.replace(/\r?\n$/, '');
  }
  // Characters typed (or pasted) ahead of the second question belong to it.
  const ahead = { text: '' };
  const password = await prompt(stdin, io, 'New password: ', ahead);
  if (password !== await prompt(stdin, io, 'Again: ', ahead)) throw new CliError(EXIT_FAILURE, 'the two passwords differ; nothing changed');
  return password;
}

function prompt(stdin: Terminal, io: CliIo, question: string, ahead: { text: string }): Promise<string> {
  if (!stdin.setRawMode || !stdin.on || !stdin.off) throw usageError('cannot read a password from this terminal; pipe it on standard input');
  io.stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume?.();
  return new Promise((resolve, reject) => {
    let text = '';
    const finish = (error: CliError | null) => {
      stdin.off!('data', onData);
      stdin.setRawMode!(false);
      stdin.pause?.();
      io.stderr.write('\n');
      if (error) reject(error);
      else resolve(text);
    };
    const onData = (chunk: Buffer | string) => {
      const chars = [...chunk.toString()];
      for (const [index, char] of chars.entries()) {
        if (char === '\r' || char === '\n') {
          ahead.text = chars.slice(index + 1).join('').replace(/^\n/, '');
          return finish(null);
        }
        if (char === CTRL_C || char === CTRL_D) return finish(new CliError(EXIT_FAILURE, 'cancelled; nothing changed'));
        if (BACKSPACES.has(char)) text = [...text].slice(0, -1).join('');
        else text += char;
      }
    };
    stdin.on!('data', onData);
    if (ahead.text !== '') {
      const typed = ahead.text;
      ahead.text = '';
      onData(typed);
    }
  });
}
