import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.ts';
import { DEFAULT_METRICS_PORT, metricsFrom } from '../../../src/config/metrics-config.ts';

describe('MUNJA_METRICS_PORT / MUNJA_METRICS_HOST', () => {
  it('defaults to 127.0.0.1 on the default port', () => {
    expect(metricsFrom({})).toEqual({ host: '127.0.0.1', port: DEFAULT_METRICS_PORT });
  });
  it('takes a port, 0, a host, and off', () => {
    expect(metricsFrom({ MUNJA_METRICS_PORT: '9100', MUNJA_METRICS_HOST: '10.0.0.5' })).toEqual({ host: '10.0.0.5', port: 9100 });
    expect(metricsFrom({ MUNJA_METRICS_PORT: '0' })?.port).toBe(0);
    expect(metricsFrom({ MUNJA_METRICS_PORT: 'off' })).toBeNull();
    expect(metricsFrom({ MUNJA_METRICS_PORT: 'OFF' })).toBeNull();
  });
  it('refuses anything else', () => {
    for (const raw of ['-1', '65536', '12.5', 'yes']) expect(() => metricsFrom({ MUNJA_METRICS_PORT: raw })).toThrow(ConfigError);
  });
});
