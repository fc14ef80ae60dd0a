// The dashboard settings: the file's `server.dashboard` over the defaults, and
// MUNJA_INSECURE_COOKIES=1 for plain-HTTP development (browsers drop Secure cookies over http://
// except on localhost, and `__Host-` requires Secure, so the cookie then loses its prefix too).
import { ConfigError } from './config-error.ts';
import type { DashboardFile } from './config-schema.ts';
import type { DashboardConfig } from './config-types.ts';
import { DEFAULT_DASHBOARD } from './default-config.ts';
import type { Env } from './load-config.ts';

export function dashboardConfig(file: DashboardFile = {}, env: Env = {}): DashboardConfig {
  const config = {
    ...DEFAULT_DASHBOARD,
    ...file,
    signInThrottle: { ...DEFAULT_DASHBOARD.signInThrottle, ...file.signInThrottle },
  };
  if (insecureCookies(env.MUNJA_INSECURE_COOKIES)) config.secureCookies = false;
  if (config.sessionIdleMs > config.sessionTtlMs) {
    throw new ConfigError('MUNJA_CONFIG: server.dashboard.sessionIdleMs exceeds sessionTtlMs');
  }
  return config;
}

function insecureCookies(raw: string | undefined): boolean {
  const value = raw?.trim().toLowerCase() ?? '';
  if (value === '' || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw new ConfigError(`MUNJA_INSECURE_COOKIES must be 1 or 0, got "${raw}"`);
}
