// One undici Pool per upstream origin: keep-alive connections, bounded in number, reused by
// every model that points at that origin. Our own timeouts replace undici's 300 s defaults.
//
// A Pool keeps every connection object it ever made, connected or not, up to its limit: after a
// surge of 9,000 streams, 9,000 idle Clients (about 2 KB of heap each) stay for good. renew()
// hands each origin a fresh Pool; the old one finishes what it carries, then closes. A config
// reload does the same for the origins whose settings changed or that are gone.
import { Pool } from 'undici';
import type { ModelConfig, UpstreamTimeouts } from '../config/config-types.ts';

export interface PoolStats {
  connected: number;
  running: number;
  pending: number;
}

export class UpstreamPools {
  readonly #pools = new Map<string, Pool>();
  #limits = new Map<string, number>();
  #timeouts: UpstreamTimeouts;
  /** Replaced pools still finishing their requests, by origin. */
  readonly #retiring = new Map<Pool, string>();

  constructor(models: readonly ModelConfig[], timeouts: UpstreamTimeouts) {
    this.#timeouts = timeouts;
    this.#limits = connectionLimits(models);
    for (const origin of this.#limits.keys()) this.#pools.set(origin, this.#create(origin));
  }

  /**
   * The pools a reloaded config asks for: an origin whose connection limit and the timeouts are
   * unchanged keeps its Pool; a changed one gets a fresh Pool; a gone one is dropped. A replaced or
   * dropped Pool finishes the requests it carries (streams included), then closes.
   */
  reconfigure(models: readonly ModelConfig[], timeouts: UpstreamTimeouts): void {
    const limits = connectionLimits(models);
    const sameTimeouts = JSON.stringify(timeouts) === JSON.stringify(this.#timeouts);
    const previous = this.#limits;
    this.#limits = limits;
    this.#timeouts = timeouts;
    for (const [origin, old] of this.#pools) {
      if (sameTimeouts && previous.get(origin) === limits.get(origin)) continue;
      this.#pools.delete(origin);
      void this.#retire(origin, old);
    }
    for (const origin of limits.keys()) {
      if (!this.#pools.has(origin)) this.#pools.set(origin, this.#create(origin));
    }
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
      closing.push(this.#retire(origin, old));
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

  #retire(origin: string, pool: Pool): Promise<void> {
    this.#retiring.set(pool, origin);
    return pool.close().catch(() => {}).finally(() => { this.#retiring.delete(pool); });
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

/** Each origin's connection cap: the largest that any upstream entry on it asks for. */
function connectionLimits(models: readonly ModelConfig[]): Map<string, number> {
  const limits = new Map<string, number>();
  for (const model of models) {
    if (model.target.kind !== 'upstreams') continue;
    for (const upstream of model.target.upstreams) {
      limits.set(upstream.origin, Math.max(limits.get(upstream.origin) ?? 0, upstream.maxConnections));
    }
  }
  return limits;
}
