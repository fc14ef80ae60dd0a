// Munja's stdout (one JSON line per request at LOG_LEVEL=info) goes to a file, not to us: the
// load generator shares the machine, so it should not also parse a log stream while measuring.
// Between scenarios, when no traffic flows, the file is tallied (read in pieces, so memory stays
// bounded) and emptied; Munja opened it for appending, so its next line lands at the new start.
import { closeSync, openSync, readSync, truncateSync } from 'node:fs';

export interface LogTally {
  readonly lines: number;
  /** `"msg":"request"` lines by their `status` (499: the client closed first). */
  readonly requestStatuses: Readonly<Record<string, number>>;
  /** The first line logged above info (level > 30), if any. */
  readonly firstProblem?: string;
}

const PIECE_BYTES = 1 << 20;
const MAX_LINE_BYTES = 64 * 1024;

export class MunjaLog {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  /** A descriptor for the child's stdout: append-only, so truncation from here is safe. */
  openForChild(): number {
    return openSync(this.path, 'a');
  }

  /** Every line written since the last clear(). */
  tally(): LogTally {
    const requestStatuses: Record<string, number> = {};
    let lines = 0;
    let firstProblem: string | undefined;
    this.#eachLine((line) => {
      lines++;
      if (firstProblem === undefined && /"level":(?:[4-9]\d)/.test(line)) firstProblem = line.slice(0, 400);
      if (!line.includes('"msg":"request"')) return;
      const status = /"status":(\d+)/.exec(line)?.[1] ?? '?';
      requestStatuses[status] = (requestStatuses[status] ?? 0) + 1;
    });
    return { lines, requestStatuses, ...(firstProblem === undefined ? {} : { firstProblem }) };
  }

  /** The first line `pick` maps to a value. */
  find<T>(pick: (line: string) => T | undefined): T | undefined {
    let found: T | undefined;
    this.#eachLine((line) => {
      found ??= pick(line);
    });
    return found;
  }

  clear(): void {
    truncateSync(this.path, 0);
  }

  #eachLine(onLine: (line: string) => void): void {
    const fd = openSync(this.path, 'r');
    try {
      const piece = Buffer.allocUnsafe(PIECE_BYTES);
      let tail = '';
      for (;;) {
        const read = readSync(fd, piece, 0, PIECE_BYTES, null);
        if (read === 0) break;
        const text = tail + piece.toString('utf8', 0, read);
        const lines = text.split('\n');
        tail = (lines.pop() ?? '').slice(-MAX_LINE_BYTES);
        for (const line of lines) onLine(line);
      }
      // An unterminated last line is still being written: leave it out.
    } finally {
      closeSync(fd);
    }
  }
}
