// MUNJA_METRICS_PORT / MUNJA_METRICS_HOST: the Prometheus listener (GET /metrics), on its own port
// so that it is never exposed with the API. `off` disables it; 0 picks a free port.
import { ConfigError } from './config-error.ts';
import type { MetricsConfig } from './config-types.ts';
import type { Env } from './load-config.ts';

export const DEFAULT_METRICS_PORT = 9464;

export function metricsFrom(env: Env): MetricsConfig | null {
  const raw = env.MUNJA_METRICS_PORT?.trim() ?? '';
  if (raw.toLowerCase() === 'off') return null;
  const port = raw === '' ? DEFAULT_METRICS_PORT : Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`MUNJA_METRICS_PORT must be an integer from 0 to 65535 or "off", got "${raw}"`);
  }
  return { host: env.MUNJA_METRICS_HOST?.trim() || '127.0.0.1', port };
}
