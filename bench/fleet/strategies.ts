// The routing strategies compared, each as Munja is configured for it. Every config has the same
// model ids (the keys are made once, for all of them):
// - `fleet-1` … `fleet-4`: one engine each, no `engine` declared;
// - `fleet`: the four engines as the strategy routes them.
// round-robin: the client asks for `fleet-1`, `fleet-2`, … in turn, request after request, so Munja
//   relays each to the next engine (what a round-robin balancer does; Munja has no such policy);
// least-outstanding: `fleet` is a route over the four single-engine models with Munja's
//   `least-outstanding` policy (the engine with the fewest requests in flight from this gateway);
// engine-aware: `fleet` lists the four engines with `"engine": "vllm"` (Munja's routing by the
//   engines' load, with prefix affinity), its poll interval scaled to the mock's clock;
// partitioned: engine-aware over the first three engines for the light tenants, the last engine
//   alone for the heavy tenant (each key sent to its own model): what keeping the heavy tenant's
//   prefill off the light tenants' engines costs and gives, for the fairness analysis.

export type StrategyName = 'round-robin' | 'least-outstanding' | 'engine-aware' | 'partitioned';

export interface Strategy {
  readonly name: StrategyName;
  readonly label: string;
  readonly models: (ports: readonly number[]) => Record<string, object>;
  /** The model for the n-th request sent (n from 0); `heavy`: the heavy tenant's. */
  readonly modelFor: (n: number, engines: number, heavy: boolean) => string;
}

/** The mock engine runs about this many times faster than the engine it stands for (engine-model.ts). */
export const TIME_SCALE = 3;
/** Munja's default poll interval (2000 ms) on the mock's faster clock. */
const POLL_MS = Math.round(2_000 / TIME_SCALE);

const baseUrl = (port: number) => `http://127.0.0.1:${port}/v1`;

function singleEngineModels(ports: readonly number[]): Record<string, object> {
  return Object.fromEntries(ports.map((port, index) => [`fleet-${index + 1}`, { upstreams: [{ baseUrl: baseUrl(port), model: 'sim', maxConnections: 1_024 }] }]));
}

const engineAware = (port: number) => ({ baseUrl: baseUrl(port), model: 'sim', maxConnections: 1_024, engine: 'vllm' });

export const STRATEGIES: readonly Strategy[] = [
  {
    name: 'round-robin',
    label: 'round-robin',
    models: (ports) => ({ ...singleEngineModels(ports), fleet: { upstreams: ports.map((port) => ({ baseUrl: baseUrl(port), model: 'sim', maxConnections: 1_024 })) } }),
    modelFor: (n, engines) => `fleet-${(n % engines) + 1}`,
  },
  {
    name: 'least-outstanding',
    label: 'least-outstanding',
    models: (ports) => ({ ...singleEngineModels(ports), fleet: { route: ports.map((_, index) => `fleet-${index + 1}`), routePolicy: 'least-outstanding' } }),
    modelFor: () => 'fleet',
  },
  {
    name: 'engine-aware',
    label: 'engine-aware (default)',
    models: (ports) => ({ ...singleEngineModels(ports), fleet: { upstreams: ports.map(engineAware) } }),
    modelFor: () => 'fleet',
  },
];

/** Not one of the compared strategies: run once, with the heavy tenant, for the fairness analysis. */
export const PARTITIONED: Strategy = {
  name: 'partitioned',
  label: 'partitioned: heavy tenant on its own engine',
  models: (ports) => ({ ...singleEngineModels(ports), fleet: { upstreams: ports.slice(0, -1).map(engineAware) } }),
  modelFor: (_n, engines, heavy) => (heavy ? `fleet-${engines}` : 'fleet'),
};

/** Munja's config for the strategy: limits that never bind, so that only the routing differs. */
export function gatewayConfig(strategy: Strategy, ports: readonly number[]): object {
  return {
    defaultModels: false,
    server: { shutdownGraceMs: 2_000, maxRequestsPerAddress: 1_000_000 },
    limits: { rpm: 100_000_000, tpm: 2_000_000_000, concurrency: 1_000_000 },
    upstream: { engineSignals: { pollMs: POLL_MS } },
    models: strategy.models(ports),
  };
}
