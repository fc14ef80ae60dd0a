// The serving process's id in the data directory, so that `munja reload` on the same machine can
// signal it without a key. With several workers it is the primary's, which passes signals on.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function pidFilePath(dataDir: string): string {
  return join(dataDir, 'munja.pid');
}

/** Writes this process's id; the returned function removes the file if it still names this process. */
export function writePidFile(dataDir: string): () => void {
  const path = pidFilePath(dataDir);
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path, `${process.pid}\n`);
  return () => {
    try {
      if (readFileSync(path, 'utf8').trim() === String(process.pid)) rmSync(path);
    } catch {
      // gone already, or replaced by another server's
    }
  };
}
