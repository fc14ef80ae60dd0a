import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peerAddress } from '../../../src/http/peer-address.ts';
import { uws } from '../../../src/http/uws.ts';
import { type ListeningApp, listenOnFreePort } from '../../helpers/uws-app.ts';

// A dual-stack listener: an IPv4 client reaches it as an IPv4-mapped IPv6 address. An IPv4-only
// listener sees it as four bytes.
function listen(host: string): Promise<ListeningApp> {
  const app = uws.App();
  // Both spellings of the peer, ours and uWS's, side by side.
  app.get('/*', (res) => {
    const uwsText = Buffer.from(res.getRemoteAddressAsText()).toString('latin1');
    res.end(JSON.stringify({ ours: peerAddress(res), uws: uwsText }));
  });
  return listenOnFreePort(app, host);
}

function spellings(host: string, port: number): Promise<{ ours: string; uws: string }> {
  return new Promise((resolve, reject) => {
    let reply = '';
    const socket = connect({ host, port }, () => socket.write('GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n'));
    socket.on('data', (chunk: Buffer) => { reply += chunk.toString('latin1'); });
    socket.on('error', reject);
    socket.on('close', () => resolve(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4)) as { ours: string; uws: string }));
  });
}

let ipv4: ListeningApp;
let dualStack: ListeningApp;

beforeAll(async () => {
  ipv4 = await listen('127.0.0.1');
  dualStack = await listen('::');
});

afterAll(() => {
  ipv4.close();
  dualStack.close();
});

describe('peerAddress', () => {
  it('spells an IPv4 peer as uWS does, the first time and from its cache', async () => {
    for (let attempt = 0; attempt < 2; attempt++) expect(await spellings('127.0.0.1', ipv4.port)).toEqual({ ours: '127.0.0.1', uws: '127.0.0.1' });
  });

  it('spells an IPv6 peer as uWS does', async () => {
    const seen = await spellings('::1', dualStack.port);
    expect(seen.ours).toBe('0000:0000:0000:0000:0000:0000:0000:0001');
    expect(seen.ours).toBe(seen.uws);
  });

  it('spells an IPv4 client of a dual-stack listener as uWS does (IPv4-mapped)', async () => {
    const seen = await spellings('127.0.0.1', dualStack.port);
    expect(seen.ours).toBe('0000:0000:0000:0000:0000:ffff:7f00:0001');
    expect(seen.ours).toBe(seen.uws);
  });
});
