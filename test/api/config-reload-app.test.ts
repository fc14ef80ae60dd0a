// A reload in one process, driven directly (the signal and CLI paths are in test/faults): new key
// limits, new models and new MCP origins apply to the next request; a bad config changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config/config-file.ts';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { reloadConfig } from '../../src/lifecycle/config-reload.ts';
import { chatBody } from '../helpers/http.ts';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let key: string;
const env = () => ({ MUNJA_DATA: gateway.dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', MUNJA_METRICS_PORT: 'off' });
const reloadTo = (file: ConfigFile) => reloadConfig(gateway.app, () => loadConfig(env(), file));

beforeAll(async () => {
  gateway = await startGateway(FAST_TEST_CONFIG);
  ({ key } = await gateway.createKey());
});
afterAll(() => gateway.close());

async function chat(model: string): Promise<Response> {
  return fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: chatBody({ model, max_tokens: 4 }),
  });
}

describe('app.reload', () => {
  it('applies new default key limits and models to the next request', async () => {
    const before = await chat('fast');
    expect(before.headers.get('x-ratelimit-limit-requests')).toBe('600');
    expect((await chat('extra')).status).toBe(404);

    const outcome = reloadTo({ ...FAST_TEST_CONFIG, limits: { rpm: 321 }, models: { ...FAST_TEST_CONFIG.models, extra: { local: { language: 'en' } } } });
    expect(outcome).toEqual({ ok: true, changed: ['limits', 'models'], needRestart: [] });
    const after = await chat('extra');
    expect(after.status).toBe(200);
    expect(after.headers.get('x-ratelimit-limit-requests')).toBe('321');
  });

  it('applies new MCP origins', async () => {
    const preflight = () => fetch(`${gateway.origin}/mcp`, { method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' } });
    expect((await preflight()).status).toBe(403);
    reloadTo({ ...FAST_TEST_CONFIG, server: { mcpAllowedOrigins: ['https://app.example.com'] } });
    const allowed = await preflight();
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
  });

  it('changes nothing when the config is bad', async () => {
    const running = gateway.app.config;
    const outcome = reloadConfig(gateway.app, () => { throw new ConfigError('MUNJA_CONFIG: limits.rpm must be >= 1'); });
    expect(outcome).toEqual({ ok: false, reason: 'MUNJA_CONFIG: limits.rpm must be >= 1' });
    expect(gateway.app.config).toBe(running);
    expect((await chat('fast')).status).toBe(200);
  });
});
