// Postinstall step: builds scripts/malloc-trim.c into node_modules/.cache/munja-malloc-trim/ with
// the system's C compiler, on Linux with glibc only (malloc_trim is glibc's). It is an
// optimisation: Munja runs without it (src/lifecycle/malloc-trim.ts), so a machine without a
// compiler, or another C library, gets a note here and an install that still succeeds.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = join(ROOT, 'node_modules', '.cache', 'munja-malloc-trim');
const SOURCE = join(ROOT, 'scripts', 'malloc-trim.c');

rmSync(OUT_DIR, { recursive: true, force: true });
const glibc = process.platform === 'linux' ? process.report?.getReport?.()?.header?.glibcVersionRuntime : undefined;
if (!glibc) process.exit(0);
mkdirSync(OUT_DIR, { recursive: true });
try {
  execFileSync('cc', ['-shared', '-fPIC', '-O2', '-o', join(OUT_DIR, 'malloc-trim.node'), SOURCE], { stdio: ['ignore', 'ignore', 'pipe'] });
} catch (error) {
  rmSync(OUT_DIR, { recursive: true, force: true });
  const reason = error.code === 'ENOENT' ? 'no C compiler (cc)' : String(error.stderr ?? error.message).trim().split('\n')[0];
  console.warn(`munja: native memory trimming not built (${reason}); Munja runs without it, but keeps freed native memory after load surges`);
}
