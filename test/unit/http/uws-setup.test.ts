// The uWebSockets.js install step: the pinned binary's only GLIBC_2.38 imports are the three
// shimmed C23 symbols, the weak-version patch touches just that flag, and the compatibility copy
// exists exactly when this machine's glibc is older than 2.38.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs install script without type declarations
import { findVersionedImports, markVersionWeak } from '../../../scripts/elf-version.mjs';
import { uws } from '../../../src/http/uws.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ADDON = `${ROOT}node_modules/@btc-vision/uwebsockets.js/uws_linux_x64_137.node`;
const COMPAT = `${ROOT}node_modules/.cache/munja-uws/glibc-c23-shim.so`;

function glibcOlderThan238(): boolean {
  const version = (process.report.getReport() as { header: { glibcVersionRuntime: string } }).header.glibcVersionRuntime;
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major < 2 || (major === 2 && minor < 38);
}

describe('uWebSockets.js setup', () => {
  const addon = readFileSync(ADDON);

  it('the pinned addon needs exactly the three shimmed symbols at GLIBC_2.38', () => {
    expect(findVersionedImports(addon, 'GLIBC_2.38').sort()).toEqual(['__isoc23_sscanf', '__isoc23_strtol', '__isoc23_strtoul']);
  });

  it('marking the requirement weak changes only that flag', () => {
    const patched: Buffer = markVersionWeak(addon, 'GLIBC_2.38');
    let differences = 0;
    for (let i = 0; i < addon.length; i++) if (addon[i] !== patched[i]) differences++;
    expect(differences).toBe(1);
    expect(() => markVersionWeak(addon, 'GLIBC_9.99')).toThrow();
  });

  it('builds the compatibility copy only on glibc < 2.38, and the addon loads', () => {
    expect(existsSync(COMPAT)).toBe(glibcOlderThan238());
    expect(typeof uws.App).toBe('function');
  });
});
