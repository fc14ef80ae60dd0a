import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Each test file belongs to exactly one lane; `npm test` runs them all and
// `npm run test:quick` runs only `unit` (no server, no redis-server, no browser).
const needsRedis = [
  'test/redis/**/*.test.ts',
  'test/contract/redis-*.test.ts',
  'test/unit/dashboard/sign-in-throttle.test.ts',
  'test/unit/helpers/redis-server.test.ts',
  'test/unit/ratelimit/lua-model.test.ts',
  'test/unit/budget/budget-lua-model.test.ts',
  'test/unit/ratelimit/redis-limiter-faults.test.ts',
  'test/unit/store/redis-outage.test.ts',
  'test/unit/store/redis-store.test.ts',
];

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests wait for conditions (expect.poll), never for fixed times; on a busy machine a condition
    // can take seconds to hold. One that never holds still fails, after this long.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    projects: [
      // Threads start faster than forks; the unit files share no process state (about 60 s -> 40 s here).
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], exclude: needsRedis, pool: 'threads', provide: { withoutRedis: true } },
      },
      { extends: true, test: { name: 'redis', include: needsRedis } },
      {
        extends: true,
        test: {
          name: 'api',
          include: ['test/api/**/*.test.ts', 'test/protocols/**/*.test.ts', 'test/cli/**/*.test.ts', 'test/mcp/**/*.test.ts', 'test/contract/**/*.test.ts'],
          exclude: needsRedis,
          // Every answer a test's fetch gets from a service it started is checked against /openapi.json's document.
          setupFiles: ['test/helpers/openapi-fetch-check.ts'],
        },
      },
      { extends: true, test: { name: 'faults', include: ['test/faults/**/*.test.ts', 'test/fuzz/**/*.test.ts'] } },
      { extends: true, test: { name: 'browser', include: ['test/dashboard/**/*.test.ts'] } },
      // Munja and the floor relay measured side by side (ratios: what runs beside them slows both alike).
      { extends: true, test: { name: 'perf', include: ['test/perf/**/*.test.ts'] } },
    ],
  },
});
