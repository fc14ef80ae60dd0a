// Loaded with `node --import` (NODE_OPTIONS) into a process under test: counts the bytes allocated
// on its V8 heap between two SIGUSR2 signals, without any change to the process's own code.
// Bench-only. The first signal starts a GCProfiler, the second stops it and writes the count to
// BENCH_ALLOCATION_FILE. The count is V8's own accounting: every collection reports the heap in
// use before and after it, so what was allocated is, summed over the collections, the heap in use
// before each one minus the heap left after the previous one (or at the start), plus the growth
// since the last one. bench/allocation/check.ts verifies it on a server of known allocation.
import { renameSync, writeFileSync } from 'node:fs';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { isMainThread } from 'node:worker_threads';

export interface AllocationReading {
  readonly state: 'started' | 'stopped';
  readonly allocatedBytes: number;
  readonly collections: number;
}

const path = process.env.BENCH_ALLOCATION_FILE;
// The engine's worker threads load the probe too; the heap that serves requests is the main thread's.
if (isMainThread && path !== undefined && path !== '') {
  let profiler: GCProfiler | undefined;
  let usedAtStart = 0;
  process.on('SIGUSR2', () => {
    if (profiler === undefined) {
      usedAtStart = getHeapStatistics().used_heap_size;
      profiler = new GCProfiler();
      profiler.start();
      write(path, { state: 'started', allocatedBytes: 0, collections: 0 });
      return;
    }
    const usedNow = getHeapStatistics().used_heap_size;
    const { statistics } = profiler.stop();
    profiler = undefined;
    let allocatedBytes = 0;
    let usedAfterLast = usedAtStart;
    for (const collection of statistics) {
      allocatedBytes += collection.beforeGC.heapStatistics.usedHeapSize - usedAfterLast;
      usedAfterLast = collection.afterGC.heapStatistics.usedHeapSize;
    }
    allocatedBytes += usedNow - usedAfterLast;
    write(path, { state: 'stopped', allocatedBytes, collections: statistics.length });
  });
}

function write(file: string, reading: AllocationReading): void {
  // Written whole, then renamed: the bench never reads half a file.
  writeFileSync(`${file}.part`, JSON.stringify(reading));
  renameSync(`${file}.part`, file);
}
