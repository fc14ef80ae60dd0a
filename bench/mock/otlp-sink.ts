// Where the tracing-cost runs export their spans: an OTLP/HTTP endpoint in the bench process (on the
// load generator's CPU) that reads each export and accepts it, counting what arrived.
import { once } from 'node:events';
import { createServer } from 'node:http';

export interface OtlpSink {
  readonly url: string;
  /** Export requests and their bytes since start. */
  readonly received: { requests: number; bytes: number };
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  const received = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => { received.bytes += chunk.length; });
    req.on('end', () => {
      received.requests += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
