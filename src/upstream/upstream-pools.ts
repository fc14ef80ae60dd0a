// One undici Pool per upstream origin: keep-alive connections, bounded in number, reused by
// every model that points at that origin. Our own timeouts replace undici's 300 s defaults.
//
// A Pool keeps every connection object it ever made, connected or not, up to its limit: after a
// surge of 9,000 streams, 9,000 idle Clients (about 2 KB of heap each) stay for good. renew()
// hands each origin a fresh Pool; the old one finishes what it carries, then closes.
import { Pool } from 'undici';
import type { ModelConfig, UpstreamTimeouts } from '../config/config-types.ts';

export interface PoolStats {
  connected: number;
  running: number;
  pending: number;
}

export class UpstreamPools {
  readonly #pools = new Map<string, Pool>();
  readonly #limits = new Map<string, number>();
  readonly #timeouts: UpstreamTimeouts;
  /** Replaced pools still finishing their requests, by origin. */
  readonly #retiring = new Map<Pool, string>();

  constructor(models: readonly ModelConfig[], timeouts: UpstreamTimeouts) {
    this.#timeouts = timeouts;
    for (const model of models) {
      if (model.target.kind !== 'upstreams') continue;
      for (const upstream of model.target.upstreams) {
        const { origin } = upstream;
        this.#limits.set(origin, Math.max(this.#limits.get(origin) ?? 0, upstream.maxConnections));
      }
    }
    for (const origin of this.#limits.keys()) this.#pools.set(origin, this.#create(origin));
  }

  get(origin: string): Pool {
    const pool = this.#pools.get(origin);
    if (pool === undefined) throw new Error(`no pool for ${origin}`);
    return pool;
  }

  /**
   * Gives every origin a fresh Pool; resolves once the old ones have closed, or after waitMs (the
   * requests still running on an old pool keep it until they end).
   */
  async renew(waitMs: number): Promise<void> {
    const closing: Promise<void>[] = [];
    for (const [origin, old] of this.#pools) {
      this.#pools.set(origin, this.#create(origin));
      this.#retiring.set(old, origin);
      closing.push(old.close().catch(() => {}).finally(() => { this.#retiring.delete(old); }));
    }
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => { timer = setTimeout(resolve, waitMs).unref(); });
    await Promise.race([Promise.all(closing), waited]);
    clearTimeout(timer);
  }

  /** Connections and requests per origin, old pools included (for tests and metrics). */
  stats(): Record<string, PoolStats> {
    const stats: Record<string, PoolStats> = {};
    const add = (origin: string, pool: Pool) => {
      const sum = stats[origin] ??= { connected: 0, running: 0, pending: 0 };
      sum.connected += pool.stats.connected;
      sum.running += pool.stats.running;
      sum.pending += pool.stats.pending;
    };
    for (const [origin, pool] of this.#pools) add(origin, pool);
    for (const [pool, origin] of this.#retiring) add(origin, pool);
    return stats;
  }

  /** Waits for requests in flight, then closes; destroys whatever is still open after graceMs. */
  async close(graceMs = 1_000): Promise<void> {
    await Promise.all([...this.#pools.values(), ...this.#retiring.keys()].map(async (pool) => {
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

  #create(origin: string): Pool {
    const timeouts = this.#timeouts;
    return new Pool(origin, {
      connections: this.#limits.get(origin)!,
      pipelining: 1,
      connectTimeout: timeouts.connectTimeoutMs,
      headersTimeout: timeouts.responseTimeoutMs,
      bodyTimeout: timeouts.idleTimeoutMs,
      keepAliveTimeout: 30_000,
      // Plain HTTP/1.1: SSE relaying relies on per-connection flow control.
      allowH2: false,
    });
  }
}
