// Loads uWebSockets.js. On glibc < 2.38 the install step (scripts/uws-setup.mjs) leaves a patched
// copy plus a shim for three C23 libc symbols in node_modules/.cache/munja-uws; the shim must be
// loaded with RTLD_GLOBAL before the addon so that the addon's imports bind to it.
//
// Header limits are uWS's own, kept on purpose (test/faults/hostile-http.test.ts). A request head
// over 4 KiB (UWS_HTTP_MAX_HEADERS_SIZE, read by the addon from the environment when it loads) or
// with more than 98 header lines is answered at once with uWS's 431 and the connection closed,
// before any handler runs; the header-count hang of older uWS.js builds (8–10 s, then an empty
// reply) does not happen with this one. API clients send well under 1 KiB of headers, and a higher
// limit would only let each connection make the parser hold more. The line count is compiled in;
// an operator behind a proxy that adds many headers can raise the size through that variable.
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
// Every response would otherwise carry `uWebSockets: 20`, naming the server software to anyone
// probing for a known flaw. `_cfg('silent')` is the addon's switch for it (it sets uWS's loop-wide
// noMark flag); the pages uWS writes itself for a request it cannot parse (400, 431, 505) still
// end with "uWebSockets/20 Server", which only a rebuild of the addon could change.
(uws as unknown as { _cfg(key: string): void })._cfg('silent');
export type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from '@btc-vision/uwebsockets.js';
