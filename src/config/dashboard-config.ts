// The dashboard settings: the file's `server.dashboard` over the defaults, and from the environment
// MUNJA_INSECURE_COOKIES=1 for plain-HTTP development (browsers drop Secure cookies over http://
// except on localhost, and `__Host-` requires Secure, so the cookie then loses its prefix too),
// MUNJA_SMTP_URL (it may hold a password, so it is never in the file) and MUNJA_MAIL_FROM.
import { ConfigError } from './config-error.ts';
import type { DashboardFile } from './config-file.ts';
import type { DashboardConfig, SignUpMode } from './config-types.ts';
import { DEFAULT_DASHBOARD } from './default-config.ts';
import type { Env } from './load-config.ts';

export function dashboardConfig(file: DashboardFile = {}, env: Env = {}): DashboardConfig {
  const { signUp, mailFrom, publicUrl, ...rest } = { ...DEFAULT_DASHBOARD, ...file };
  const config = {
    ...rest,
    signUp: signUpMode(signUp),
    signInThrottle: { ...DEFAULT_DASHBOARD.signInThrottle, ...file.signInThrottle },
    signUpThrottle: { ...DEFAULT_DASHBOARD.signUpThrottle, ...file.signUpThrottle },
    publicUrl: publicUrl?.replace(/\/$/, '') ?? null,
    mail: mailSettings(env, mailFrom),
  };
  if (insecureCookies(env.MUNJA_INSECURE_COOKIES)) config.secureCookies = false;
  if (config.sessionIdleMs > config.sessionTtlMs) {
    throw new ConfigError('MUNJA_CONFIG: server.dashboard.sessionIdleMs exceeds sessionTtlMs');
  }
  if (config.signUp === 'email' && (config.mail === null || config.publicUrl === null)) {
    throw new ConfigError('MUNJA_CONFIG: server.dashboard.signUp "email" needs MUNJA_SMTP_URL, a From address (MUNJA_MAIL_FROM or server.dashboard.mailFrom) and server.dashboard.publicUrl');
  }
  return config;
}

function signUpMode(value: DashboardFile['signUp'] | SignUpMode): SignUpMode {
  if (value === true) return 'open';
  if (value === false) return 'closed';
  return value ?? 'open';
}

function mailSettings(env: Env, fileFrom: string | null): DashboardConfig['mail'] {
  const smtpUrl = env.MUNJA_SMTP_URL?.trim() ?? '';
  const from = env.MUNJA_MAIL_FROM?.trim() || fileFrom || '';
  if (smtpUrl === '') return null;
  if (!/^smtps?:\/\/[^\s]+$/.test(smtpUrl)) throw new ConfigError('MUNJA_SMTP_URL must be an smtp:// or smtps:// URL');
  if (from === '') throw new ConfigError('MUNJA_SMTP_URL is set but no From address: set MUNJA_MAIL_FROM or server.dashboard.mailFrom');
  return { smtpUrl, from };
}

function insecureCookies(raw: string | undefined): boolean {
  const value = raw?.trim().toLowerCase() ?? '';
  if (value === '' || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw new ConfigError(`MUNJA_INSECURE_COOKIES must be 1 or 0, got "${raw}"`);
}
