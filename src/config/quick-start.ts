// MUNJA_UPSTREAM_URL (+ MUNJA_UPSTREAM_KEY, MUNJA_UPSTREAM_MODEL): every documented id served by
// one OpenAI-compatible server, without a config file.
import type { ModelFile } from './config-file.ts';
import type { Env } from './load-config.ts';
import { checkUpstreamBaseUrl } from './upstream-base-url.ts';

export function quickStartModels(env: Env): Record<string, ModelFile> | null {
  const url = env.MUNJA_UPSTREAM_URL?.trim();
  if (!url) return null;
  checkUpstreamBaseUrl(url, 'MUNJA_UPSTREAM_URL');
  const apiKey = env.MUNJA_UPSTREAM_KEY?.trim() || undefined;
  const upstreamModel = env.MUNJA_UPSTREAM_MODEL?.trim() || undefined;
  const upstream = (id: string) => [{ baseUrl: url, model: upstreamModel ?? id, ...(apiKey ? { apiKey } : {}) }];
  return {
    auto: { description: 'Recommended starting model.', route: ['default', 'fast'] },
    default: { description: 'General-purpose assistance.', upstreams: upstream('default') },
    pro: { description: 'High intelligence and complex reasoning.', upstreams: upstream('pro') },
    fast: { description: 'Very low latency routine tasks.', upstreams: upstream('fast') },
    hrllm: { description: 'Croatian-focused generation.', upstreams: upstream('hrllm') },
  };
}
