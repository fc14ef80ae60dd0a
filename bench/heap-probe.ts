// Loaded into the soak's Munja with `node --import` (NODE_OPTIONS): writes process.memoryUsage()
// to BENCH_HEAP_FILE every second, so the bench can follow the V8 heap from outside without any
// change to Munja. Bench-only; the timer is unref'd and never keeps the process alive.
import { writeFileSync } from 'node:fs';

const path = process.env.BENCH_HEAP_FILE;
if (path !== undefined && path !== '') {
  setInterval(() => {
    try {
      writeFileSync(path, JSON.stringify(process.memoryUsage()));
    } catch {
      // the bench's temp dir is gone: it is shutting down
    }
  }, 1_000).unref();
}
