// A free loopback port for a peer that cannot listen on port 0 and report it (nginx, the Portkey
// gateway). Another process could take it before the peer binds it; the peer then fails to start
// and the bench says so.
import { once } from 'node:events';
import { connect, createServer } from 'node:net';

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** Resolves once something accepts connections on the port; rejects after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs: number, exited: Promise<unknown>): Promise<void> {
  let gone = false;
  void exited.then(() => { gone = true; });
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline && !gone) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ port, host: '127.0.0.1' });
      socket.once('connect', () => { socket.destroy(); resolve(true); });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(gone ? 'exited before it listened' : `not listening within ${timeoutMs} ms`);
}
