// A model server in its own process (so its writing costs the gateway's process nothing) that
// answers model `flood` with an event stream of 16 KiB pieces and no line end, as fast as the
// connection takes them, for up to 4 s; any other model gets a short, well-formed stream.
//   node test/helpers/flooding-upstream.ts   → prints {"port":N}; stops on SIGTERM.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const PIECE = Buffer.alloc(16 * 1024, 'a');
const FLOOD_MS = 4_000;
const chunk = (choice: string) => `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[${choice}]}\n\n`;
const GOOD = Array.from({ length: 5 }, (_, index) => chunk(`{"index":0,"delta":{"content":"w${index} "},"finish_reason":null}`)).join('')
  + chunk('{"index":0,"delta":{},"finish_reason":"stop"}') + 'data: [DONE]\n\n';

const server = createServer((request, response) => {
  let body = '';
  request.on('data', (data: Buffer) => (body += data.toString()));
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    if ((JSON.parse(body) as { model?: string }).model !== 'flood') return response.end(GOOD);
    response.write('data: {"choices":[{"delta":{"content":"');
    const until = Date.now() + FLOOD_MS;
    const more = () => {
      while (!response.destroyed && Date.now() < until) if (!response.write(PIECE)) return response.once('drain', more);
      response.end();
    };
    more();
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
