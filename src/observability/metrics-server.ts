// The listener for GET /metrics: plain node:http on its own host and port (127.0.0.1 by default),
// never the API's. Off the hot path, so no uWS. In cluster mode the primary runs it and answers
// with the sum over workers (prom-client's AggregatorRegistry); otherwise the single process.
import { createServer } from 'node:http';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { MetricsConfig } from '../config/config-types.ts';
import type { Logger } from './logger.ts';

export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

type Render = () => Promise<string>;

export async function startMetricsServer(config: MetricsConfig, render: Render, logger: Logger): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found. Metrics are at /metrics.\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('Method not allowed.\n');
      return;
    }
    render().then((body) => {
      res.writeHead(200, { 'content-type': AggregatorRegistry.PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    }, (error: unknown) => {
      logger.warn({ err: error }, 'metrics scrape failed');
      res.writeHead(500, { 'content-type': 'text/plain' }).end('Metrics are unavailable right now.\n');
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => reject(new Error(`cannot listen for metrics on ${config.host}:${config.port}: ${error.message}`));
    server.once('error', failed);
    server.listen(config.port, config.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  server.on('error', (error) => logger.warn({ err: error }, 'metrics listener error'));
  const { port } = server.address() as { port: number };
  return {
    port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The single process's own registry. */
export function renderRegistry(registry: Registry): Render {
  return () => registry.metrics();
}

/** The primary of a cluster: asks every worker (IPC) and sums their series. */
export function renderCluster(): Render {
  const aggregator = new AggregatorRegistry();
  return () => aggregator.clusterMetrics();
}
