// Loads uWebSockets.js. On glibc < 2.38 the install step (scripts/uws-setup.mjs) leaves a patched
// copy plus a shim for three C23 libc symbols in node_modules/.cache/munja-uws; the shim must be
// loaded with RTLD_GLOBAL before the addon so that the addon's imports bind to it.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';

type Uws = typeof import('@btc-vision/uwebsockets.js');

const require = createRequire(import.meta.url);
const compatDir = fileURLToPath(new URL('../../node_modules/.cache/munja-uws/', import.meta.url));

function load(): Uws {
  const shim = `${compatDir}glibc-c23-shim.so`;
  if (!existsSync(shim)) return require('@btc-vision/uwebsockets.js') as Uws;
  process.dlopen({ exports: {} }, shim, constants.dlopen.RTLD_NOW | constants.dlopen.RTLD_GLOBAL);
  return require(`${compatDir}package/uws.js`) as Uws;
}

export const uws: Uws = load();
export type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from '@btc-vision/uwebsockets.js';
