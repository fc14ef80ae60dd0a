// Postinstall step for uWebSockets.js (npm package @btc-vision/uwebsockets.js, pinned in package.json).
// 1. Verifies the sha256 of the addon this platform loads, so a tampered or re-published tarball
//    fails the install instead of running.
// 2. On glibc < 2.38 only (Debian 12 ships 2.36), builds a loadable copy under
//    node_modules/.cache/munja-uws: the addon imports three C23 symbols versioned GLIBC_2.38
//    (__isoc23_sscanf/strtol/strtoul, which differ from the classic functions only in accepting
//    0b literals). The copy marks that version requirement weak and a tiny shim library defines the
//    three symbols; src/http/uws.ts loads the shim first. On a newer glibc nothing is built and the
//    pinned binary loads untouched.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findVersionedImports, markVersionWeak } from './elf-version.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGE_DIR = join(ROOT, 'node_modules', '@btc-vision', 'uwebsockets.js');
const COMPAT_DIR = join(ROOT, 'node_modules', '.cache', 'munja-uws');
const ABI_NODE_24 = '137';
// sha256 of the addons in @btc-vision/uwebsockets.js@20.57.0 that we can run on.
const PINNED_SHA256 = {
  'uws_linux_x64_137.node': '98128405dba2fb608448e921a979530f70c946a2cc9889c15f2fa70c2d00ab05',
};
const SHIMMED_SYMBOLS = ['__isoc23_sscanf', '__isoc23_strtol', '__isoc23_strtoul'];
const SHIM_SOURCE = `#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
long __isoc23_strtol(const char *s, char **end, int base) { return strtol(s, end, base); }
unsigned long __isoc23_strtoul(const char *s, char **end, int base) { return strtoul(s, end, base); }
int __isoc23_sscanf(const char *s, const char *format, ...) {
  va_list args; va_start(args, format); int n = vsscanf(s, format, args); va_end(args); return n;
}
/* An empty Node-API module, so that process.dlopen keeps the library loaded (RTLD_GLOBAL). */
typedef struct napi_env__ *napi_env;
typedef struct napi_value__ *napi_value;
napi_value napi_register_module_v1(napi_env env, napi_value exports) { (void)env; return exports; }
`;

function fail(message) {
  console.error(`munja: uWebSockets.js setup failed: ${message}`);
  process.exit(1);
}

function glibcVersion() {
  const report = process.report?.getReport?.();
  return report?.header?.glibcVersionRuntime ?? null;
}

function olderThan(version, [major, minor]) {
  const [a, b] = version.split('.').map(Number);
  return a < major || (a === major && b < minor);
}

if (!existsSync(PACKAGE_DIR)) fail(`${PACKAGE_DIR} is missing; run npm install`);
const addonName = `uws_${process.platform}_${process.arch}_${ABI_NODE_24}.node`;
const addonPath = join(PACKAGE_DIR, addonName);
const expected = PINNED_SHA256[addonName];
if (!expected) {
  console.warn(`munja: no pinned checksum for ${addonName}; it is loaded unverified`);
} else {
  const actual = createHash('sha256').update(readFileSync(addonPath)).digest('hex');
  if (actual !== expected) fail(`${addonName} has sha256 ${actual}, expected ${expected}`);
}

rmSync(COMPAT_DIR, { recursive: true, force: true });
const glibc = process.platform === 'linux' ? glibcVersion() : null;
if (!glibc || !olderThan(glibc, [2, 38])) process.exit(0);

const addon = readFileSync(addonPath);
const imports = findVersionedImports(addon, 'GLIBC_2.38');
const unshimmed = imports.filter((name) => !SHIMMED_SYMBOLS.includes(name));
if (unshimmed.length > 0) fail(`the addon needs GLIBC_2.38 symbols without a shim: ${unshimmed.join(', ')}`);

mkdirSync(COMPAT_DIR, { recursive: true });
cpSync(PACKAGE_DIR, join(COMPAT_DIR, 'package'), { recursive: true });
writeFileSync(join(COMPAT_DIR, 'package', addonName), markVersionWeak(addon, 'GLIBC_2.38'));
writeFileSync(join(COMPAT_DIR, 'glibc-c23-shim.c'), SHIM_SOURCE);
try {
  execFileSync('cc', ['-shared', '-fPIC', '-O2', '-o', join(COMPAT_DIR, 'glibc-c23-shim.so'),
    join(COMPAT_DIR, 'glibc-c23-shim.c')], { stdio: 'inherit' });
} catch (error) {
  fail(`could not compile the glibc ${glibc} compatibility shim with cc (${error.message})`);
}
console.log(`munja: glibc ${glibc} < 2.38: built a compatible uWebSockets.js copy (${imports.length} symbols shimmed)`);
