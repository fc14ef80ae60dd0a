// An upstream's base URL: what comes before /chat/completions on an OpenAI-compatible server.
// Any path is accepted (/v1, /v1beta/openai, /openai/v1, /api/v1, …); the mistakes worth catching
// at start are a bare origin (the path forgotten) and the endpoint itself given instead of its base.
import { ConfigError } from './config-error.ts';

/** Throws a ConfigError naming `setting` unless `raw` is usable as a base URL. */
export function checkUpstreamBaseUrl(raw: string, setting: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${setting} must be an http(s) URL, got "${raw}"`);
  }
  const problem = url.protocol !== 'http:' && url.protocol !== 'https:'
    ? 'must be an http(s) URL'
    : url.search !== '' || url.hash !== ''
      ? 'must not have a query or fragment'
      : url.pathname.replace(/\/+$/, '') === ''
        ? 'needs the API\'s base path, the part before /chat/completions (e.g. /v1)'
        : /\/chat\/completions\/?$/.test(url.pathname)
          ? 'is the base URL, without /chat/completions'
          : null;
  if (problem !== null) throw new ConfigError(`${setting} ${problem}, got "${raw}"`);
}
