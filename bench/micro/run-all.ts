// Runs every micro-benchmark in bench/micro/ one after the other, each in its own process (so one
// benchmark's JIT state and garbage do not affect the next), and prints their tables.
// Run: node bench/micro/run-all.ts   (about a minute)
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const files = readdirSync(here).filter((name) => name.endsWith('.bench.ts')).sort();
let failed = 0;
for (const file of files) {
  const result = spawnSync(process.execPath, [`${here}${file}`], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 300_000 });
  if (result.status !== 0) {
    failed++;
    process.stderr.write(`micro: ${file} failed (${result.status ?? result.signal})\n`);
  }
  process.stdout.write('\n');
}
process.exitCode = failed === 0 ? 0 : 1;
