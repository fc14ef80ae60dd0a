import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, validateConfigFile } from '../../../src/config/load-config.ts';

describe('dashboard settings', () => {
  it('defaults to secure cookies, 24 h sessions with a 2 h idle limit, two hashes at once, open sign-up, 20 keys', () => {
    expect(loadConfig({}).dashboard).toEqual({
      enabled: true, signUp: 'open', secureCookies: true, sessionTtlMs: 86_400_000, sessionIdleMs: 7_200_000,
      hashConcurrency: 2, trustProxy: false, signInThrottle: { accountFailures: 5, addressFailures: 30, windowMs: 900_000 },
      signUpThrottle: { addressSignUps: 5, windowMs: 3_600_000 }, maxKeysPerAccount: 20, publicUrl: null, mail: null,
      verificationTtlMs: 86_400_000, inviteTtlMs: 604_800_000,
    });
  });

  it('reads the sign-up mode (true and false still mean open and closed) and needs mail settings for email', () => {
    expect(loadConfig({}, { server: { dashboard: { signUp: true } } }).dashboard.signUp).toBe('open');
    expect(loadConfig({}, { server: { dashboard: { signUp: 'invite' } } }).dashboard.signUp).toBe('invite');
    expect(() => loadConfig({}, { server: { dashboard: { signUp: 'email' } } })).toThrow(/MUNJA_SMTP_URL/);
    const email = loadConfig(
      { MUNJA_SMTP_URL: 'smtp://mail.example.com:587', MUNJA_MAIL_FROM: 'Munja <no-reply@example.com>' },
      { server: { dashboard: { signUp: 'email', publicUrl: 'https://api.example.com/' } } },
    ).dashboard;
    expect(email).toMatchObject({
      signUp: 'email', publicUrl: 'https://api.example.com', mail: { smtpUrl: 'smtp://mail.example.com:587', from: 'Munja <no-reply@example.com>' },
    });
    expect(() => loadConfig({ MUNJA_SMTP_URL: 'http://mail' })).toThrow(/MUNJA_SMTP_URL/);
    expect(() => loadConfig({ MUNJA_SMTP_URL: 'smtp://mail' })).toThrow(/MUNJA_MAIL_FROM/);
    expect(() => validateConfigFile({ server: { dashboard: { signUp: 'maybe' } } }, 'MUNJA_CONFIG')).toThrow(/signUp/);
    expect(() => validateConfigFile({ server: { dashboard: { publicUrl: 'https://x.example/path' } } }, 'MUNJA_CONFIG')).toThrow(/publicUrl/);
  });

  it('takes server.dashboard from the file, merging the throttle', () => {
    const config = loadConfig({}, { server: { dashboard: { signUp: false, signInThrottle: { accountFailures: 10 } } } });
    expect(config.dashboard.signUp).toBe('closed');
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
