// uWS writes the status line verbatim; build each one once.
import { STATUS_CODES } from 'node:http';

const lines = new Map<number, string>();

export function statusLine(status: number): string {
  let line = lines.get(status);
  if (line === undefined) {
    line = `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
    lines.set(status, line);
  }
  return line;
}
