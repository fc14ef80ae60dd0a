// A server whose extra allocation per request is known, to check the allocation probe: answers
// every POST with "ok" and, with --extra N, first allocates an N-element array (kept in a ring,
// so it is neither optimised away nor freed at once: collections of both generations happen).
//   node bench/allocation/toy-server.ts [--extra N]   prints {"port":N}
import { parseArgs } from 'node:util';
import { uws } from '../../src/http/uws.ts';

const { values } = parseArgs({ options: { extra: { type: 'string', default: '0' } } });
const extraElements = Number(values.extra);
const kept: unknown[] = new Array(4096).fill(undefined);
let next = 0;

const app = uws.App();
app.post('/*', (res) => {
  res.onAborted(() => {});
  res.onData((_piece, last) => {
    if (!last) return;
    if (extraElements > 0) kept[next++ & 4095] = new Array(extraElements);
    res.end('ok');
  });
});
app.listen('127.0.0.1', 0, (socket) => {
  if (!socket) throw new Error('cannot listen');
  process.stdout.write(`${JSON.stringify({ port: uws.us_socket_local_port(socket) })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
