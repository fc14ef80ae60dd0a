// `accounts password` at a terminal: asked twice without echo (raw mode), typed or pasted.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../../src/cli/cli-io.ts';
import { readPassword } from '../../../src/cli/read-password.ts';

function terminal(chunks: string[]) {
  const modes: boolean[] = [];
  const stdin = Object.assign(new EventEmitter(), {
    isTTY: true,
    setRawMode: (raw: boolean) => { modes.push(raw); },
    resume: () => {},
    pause: () => {},
    async *[Symbol.asyncIterator]() {},
  });
  let stderr = '';
  const io: CliIo = { stdout: { write: () => true }, stderr: { write: (text: string) => (stderr += text) }, env: {}, stdin };
  // Each chunk arrives once the previous question is on the screen, as a person would type it.
  const typing = (async () => {
    for (const chunk of chunks) {
      await new Promise((resolve) => setImmediate(resolve));
      stdin.emit('data', Buffer.from(chunk));
    }
  })();
  return { io, modes, stderr: () => stderr, typing };
}

describe('readPassword at a terminal', () => {
  it('asks twice in raw mode (no echo), with backspace, and returns the password', async () => {
    const { io, modes, stderr } = terminal(['a long', ' enough passwordX\u007f\r', 'a long enough password\r']);
    expect(await readPassword(io)).toBe('a long enough password');
    expect(stderr()).toBe('New password: \nAgain: \n');
    expect(modes).toEqual([true, false, true, false]);
  });

  it('takes both answers pasted at once', async () => {
    const { io } = terminal(['same password!\rsame password!\r']);
    expect(await readPassword(io)).toBe('same password!');
  });

  it('refuses two different answers, and Ctrl-C cancels', async () => {
    await expect(readPassword(terminal(['one password\r', 'another one\r']).io)).rejects.toThrow('the two passwords differ; nothing changed');
    await expect(readPassword(terminal(['abc\u0003']).io)).rejects.toThrow('cancelled; nothing changed');
  });
});
