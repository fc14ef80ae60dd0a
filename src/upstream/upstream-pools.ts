// One undici Pool per upstream origin: keep-alive connections, bounded in number, reused by
// every model that points at that origin. Our own timeouts replace undici's 300 s defaults.
import { Pool } from 'undici';
import type { ModelConfig, UpstreamTimeouts } from '../config/config-types.ts';

export class UpstreamPools {
  readonly #pools = new Map<string, Pool>();

  constructor(models: readonly ModelConfig[], timeouts: UpstreamTimeouts) {
    const connections = new Map<string, number>();
    for (const model of models) {
      if (model.target.kind !== 'upstreams') continue;
      for (const upstream of model.target.upstreams) {
        const { origin } = upstream;
        connections.set(origin, Math.max(connections.get(origin) ?? 0, upstream.maxConnections));
      }
    }
    for (const [origin, limit] of connections) {
      this.#pools.set(origin, new Pool(origin, {
        connections: limit,
        pipelining: 1,
        connectTimeout: timeouts.connectTimeoutMs,
        headersTimeout: timeouts.responseTimeoutMs,
        bodyTimeout: timeouts.idleTimeoutMs,
        keepAliveTimeout: 30_000,
        // Plain HTTP/1.1: SSE relaying relies on per-connection flow control.
        allowH2: false,
      }));
    }
  }

  get(origin: string): Pool {
    const pool = this.#pools.get(origin);
    if (pool === undefined) throw new Error(`no pool for ${origin}`);
    return pool;
  }

  /** Connections currently open per origin (for tests and metrics). */
  stats(): Record<string, { connected: number; running: number; pending: number }> {
    const stats: Record<string, { connected: number; running: number; pending: number }> = {};
    for (const [origin, pool] of this.#pools) stats[origin] = { connected: pool.stats.connected, running: pool.stats.running, pending: pool.stats.pending };
    return stats;
  }

  /** Waits for requests in flight, then closes; destroys whatever is still open after graceMs. */
  async close(graceMs = 1_000): Promise<void> {
    await Promise.all([...this.#pools.values()].map(async (pool) => {
      const timer = setTimeout(() => { void pool.destroy(); }, graceMs);
      try {
        await pool.close();
      } catch {
        // already destroyed
      } finally {
        clearTimeout(timer);
      }
    }));
  }
}
