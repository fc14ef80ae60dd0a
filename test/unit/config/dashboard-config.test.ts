import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, validateConfigFile } from '../../../src/config/load-config.ts';

describe('dashboard settings', () => {
  it('defaults to secure cookies, 24 h sessions with a 2 h idle limit, two hashes at once', () => {
    expect(loadConfig({}).dashboard).toEqual({
      enabled: true, signUp: true, secureCookies: true, sessionTtlMs: 86_400_000, sessionIdleMs: 7_200_000,
      hashConcurrency: 2, trustProxy: false, signInThrottle: { accountFailures: 5, addressFailures: 30, windowMs: 900_000 },
    });
  });

  it('takes server.dashboard from the file, merging the throttle', () => {
    const config = loadConfig({}, { server: { dashboard: { signUp: false, signInThrottle: { accountFailures: 10 } } } });
    expect(config.dashboard.signUp).toBe(false);
    expect(config.dashboard.signInThrottle).toEqual({ accountFailures: 10, addressFailures: 30, windowMs: 900_000 });
    expect(() => loadConfig({}, { server: { dashboard: { sessionTtlMs: 3_600_000, sessionIdleMs: 7_200_000 } } })).toThrow(/sessionIdleMs/);
  });

  it('validates server.dashboard in the file', () => {
    expect(() => validateConfigFile({ server: { dashboard: { trustProxy: true, hashConcurrency: 4 } } }, 'MUNJA_CONFIG')).not.toThrow();
    expect(() => validateConfigFile({ server: { dashboard: { cookies: 'no' } } }, 'MUNJA_CONFIG')).toThrow(/cookies/);
    expect(() => validateConfigFile({ server: { dashboard: { hashConcurrency: 0 } } }, 'MUNJA_CONFIG')).toThrow(/hashConcurrency/);
  });

  it('turns Secure cookies off with MUNJA_INSECURE_COOKIES=1 (plain-HTTP development)', () => {
    expect(loadConfig({ MUNJA_INSECURE_COOKIES: '1' }).dashboard.secureCookies).toBe(false);
    expect(loadConfig({ MUNJA_INSECURE_COOKIES: '0' }).dashboard.secureCookies).toBe(true);
    expect(() => loadConfig({ MUNJA_INSECURE_COOKIES: 'yes please' })).toThrow(ConfigError);
  });
});
