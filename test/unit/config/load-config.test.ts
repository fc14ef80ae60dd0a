import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config/config-types.ts';
import { ConfigError, loadConfig, modelIdsFrom } from '../../../src/config/load-config.ts';

const dir = mkdtempSync(join(tmpdir(), 'munja-config-'));
const modelOf = (config: Config, id: string) => config.models.find((model) => model.id === id);
function configFile(content: unknown): string {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('loadConfig', () => {
  it('defaults: the five documented ids on the local engine, frozen', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.host).toBe('127.0.0.1');
    expect(config.models.map((model) => model.id)).toEqual(['auto', 'default', 'pro', 'fast', 'hrllm']);
    expect(config.models.find((model) => model.id === 'hrllm')?.target).toMatchObject({ kind: 'local', language: 'hr' });
    expect(config.models.find((model) => model.id === 'auto')?.target).toEqual({ kind: 'route', policy: 'least-outstanding', models: ['default', 'fast'] });
    expect(config.resilience).toEqual({ retry: { budgetPercent: 10, reserve: 10, backoffMs: 50 }, breaker: { consecutiveFailures: 5, ejectMs: 30_000 }, rateLimitBackoffMaxMs: 10_000 });
    expect(Object.isFrozen(config.models[0]!.target)).toBe(true);
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ MUNJA_CONFIG: '/nonexistent/munja.json' }, /MUNJA_CONFIG: cannot read/],
    [{ MUNJA_UPSTREAM_URL: 'http://localhost:8000' }, /MUNJA_UPSTREAM_URL needs the API's base path, the part before \/chat\/completions/],
    [{ MUNJA_UPSTREAM_URL: 'http://localhost:8000/v1/chat/completions' }, /MUNJA_UPSTREAM_URL is the base URL, without \/chat\/completions/],
    [{ MUNJA_UPSTREAM_URL: 'ftp://localhost/v1' }, /MUNJA_UPSTREAM_URL must be an http\(s\) URL/],
    [{ MUNJA_UPSTREAM_URL: 'http://localhost/v1?x=1' }, /MUNJA_UPSTREAM_URL must not have a query/],
  ])('refuses %j, naming the setting', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('the abuse caps: on by default, set from server, trustProxy also from the dashboard\'s older setting', () => {
    expect(loadConfig({})).toMatchObject({ maxBufferedBodyBytes: 128 * 1024 * 1024, maxRequestsPerAddress: 128, trustProxy: false, dashboard: { trustProxy: false } });
    const set = loadConfig({ MUNJA_CONFIG: configFile({ server: { maxBufferedBodyBytes: 8 * 1024 * 1024, maxRequestsPerAddress: 4, trustProxy: true } }) });
    expect(set).toMatchObject({ maxBufferedBodyBytes: 8 * 1024 * 1024, maxRequestsPerAddress: 4, trustProxy: true, dashboard: { trustProxy: true } });
    expect(loadConfig({ MUNJA_CONFIG: configFile({ server: { dashboard: { trustProxy: true } } }) })).toMatchObject({ trustProxy: true, dashboard: { trustProxy: true } });
    expect(loadConfig({ MUNJA_CONFIG: configFile({ server: { trustProxy: false, dashboard: { trustProxy: true } } }) })).toMatchObject({ trustProxy: false, dashboard: { trustProxy: false } });
  });

  it.each([
    ['a body budget below the body cap', { server: { maxBodyBytes: 8 * 1024 * 1024, maxBufferedBodyBytes: 4 * 1024 * 1024 } }, /server\.maxBufferedBodyBytes/],
    ['a zero per-address cap', { server: { maxRequestsPerAddress: 0 } }, /server\.maxRequestsPerAddress/],
    ['not JSON', '{models:', /not valid JSON/],
    ['an unknown section', { modles: {} }, /"modles"/],
    ['a bad upstream URL', { models: { pro: { upstreams: [{ baseUrl: 'ftp://x/v1' }] } } }, /models\.pro\.upstreams\.0\.baseUrl/],
    ['an upstream URL without a path', { models: { pro: { upstreams: [{ baseUrl: 'http://x:8000/' }] } } }, /models\.pro\.upstreams\.0\.baseUrl needs the API's base path/],
    ['two targets', { models: { pro: { local: {}, route: ['x'] } } }, /models\.pro needs exactly one/],
    ['a route to nowhere', { models: { auto: { route: ['nope'] } } }, /unknown model "nope"/],
    ['a negative rpm', { limits: { rpm: -1 } }, /limits\.rpm/],
    ['a route policy on a non-route', { models: { pro: { local: {}, routePolicy: 'first' } } }, /models\.pro\.routePolicy applies only to a route/],
    ['an unknown route policy', { models: { fast: { local: {} }, auto: { route: ['fast'], routePolicy: 'random' } } }, /routePolicy/],
    ['a retry budget over 100 %', { upstream: { retry: { budgetPercent: 101 } } }, /upstream\.retry\.budgetPercent/],
    ['a snake_case name', { models: { pro: { upstreams: [{ baseUrl: 'http://x/v1', api_key: 'k' }] } } }, /models\.pro\.upstreams\.0 has an unknown setting "api_key"; did you mean "apiKey"\?/],
    ['a misspelt section', { limts: {} }, /\(top level\) has an unknown setting "limts"; did you mean "limits"\?/],
    ['a misspelt setting', { models: { fast: { local: { langauge: 'en' } } } }, /did you mean "language"\?/],
    ['an upstream API nobody speaks', { models: { pro: { upstreams: [{ baseUrl: 'http://x/v1', api: ['chat', 'completions'] }] } } }, /models\.pro\.upstreams\.0\.api\.1 must be one of "chat", "responses", "messages"/],
    ['an upstream API listed twice', { models: { pro: { upstreams: [{ baseUrl: 'http://x/v1', api: ['chat', 'chat'] }] } } }, /models\.pro\.upstreams\.0\.api must NOT have duplicate items/],
    ['an upstream without chat', { models: { pro: { upstreams: [{ baseUrl: 'http://x/v1', api: ['responses'] }] } } }, /models\.pro\.upstreams\.0\.api must include "chat"/],
    ['an upstream URL without its scheme', { models: { pro: { upstreams: [{ baseUrl: 'localhost:8000/v1' }] } } }, /baseUrl must be an http:\/\/ or https:\/\/ URL, scheme included/],
    ['an unknown priority band', { limits: { priority: 'urgent' } }, /limits\.priority/],
    ['an unknown priority band for a key', { limits: { priority: { keys: { key_a: 'urgent' } } } }, /limits\.priority/],
    ['a queue deadline of 0', { limits: { queue: { timeoutMs: 0 } } }, /limits\.queue\.timeoutMs/],
    ['an upstream cap of 0', { models: { pro: { upstreams: [{ baseUrl: 'http://x/v1', maxConcurrent: 0 }] } } }, /models\.pro\.upstreams\.0\.maxConcurrent/],
  ])('refuses a config file with %s, naming the field', (_name, content, message) => {
    expect(() => loadConfig({ MUNJA_CONFIG: configFile(content) })).toThrow(message);
  });

  it('chooses by load, and queues, the upstreams of a model where one declares an engine or a maxConcurrent', () => {
    const config = loadConfig({ MUNJA_CONFIG: configFile({ models: {
      capped: { upstreams: [{ baseUrl: 'http://a/v1', maxConcurrent: 4 }, { baseUrl: 'http://b/v1' }] },
      plain: { upstreams: [{ baseUrl: 'http://c/v1' }] },
    } }) });
    const target = (id: string) => config.models.find((model) => model.id === id)!.target;
    expect(target('capped')).toMatchObject({ kind: 'upstreams', engineAware: true, upstreams: [{ maxConcurrent: 4 }, {}] });
    expect(target('capped')).not.toHaveProperty('upstreams.1.maxConcurrent');
    expect(target('plain')).not.toHaveProperty('engineAware');
    expect(config.queue).toEqual({ maxWaiting: 1000, timeoutMs: 10_000 });
  });

  it('reads the route policy and the resilience settings, keeping the timeouts apart', () => {
    const config = loadConfig({ MUNJA_CONFIG: configFile({
      upstream: { idleTimeoutMs: 5, maxEventBytes: 4096, breaker: { ejectMs: 100 }, retry: { reserve: 0 } },
      models: { fast: { local: {} }, auto: { route: ['fast'], routePolicy: 'first' } },
    }) });
    expect(modelOf(config, 'auto')!.target).toEqual({ kind: 'route', policy: 'first', models: ['fast'] });
    expect(config.upstream).toEqual({ connectTimeoutMs: 5_000, firstByteTimeoutMs: 60_000, responseTimeoutMs: 600_000, idleTimeoutMs: 5, maxEventBytes: 4096 });
    expect(config.resilience.breaker).toEqual({ consecutiveFailures: 5, ejectMs: 100 });
    expect(config.resilience.retry).toEqual({ budgetPercent: 10, reserve: 0, backoffMs: 50 });
  });

  it('reads what each model supports: tools and response formats by default, content parts only when asked', () => {
    const upstreams = [{ baseUrl: 'http://h/v1' }];
    const config = loadConfig({}, { defaultModels: false, models: { a: { upstreams }, b: { upstreams, supports: { tools: false, contentParts: true } }, c: { route: ['a', 'b'] } } });
    expect(config.models.map((model) => model.supports)).toEqual([
      { tools: true, responseFormat: true, contentParts: false },
      { tools: false, responseFormat: true, contentParts: true },
      { tools: true, responseFormat: true, contentParts: false },
    ]);
    // The built-in engine takes text parts too when asked (it refuses image parts per request).
    expect(loadConfig({}, { models: { a: { local: {}, supports: { contentParts: true } } } }).models.find((model) => model.id === 'a')!.supports.contentParts).toBe(true);
    expect(() => loadConfig({}, { models: { a: { upstreams }, r: { route: ['a'], supports: { tools: false } } } })).toThrow(/not to the route/);
    expect(() => loadConfig({ MUNJA_CONFIG: configFile({ models: { a: { upstreams, supports: { vision: true } } } }) })).toThrow(/supports/);
  });

  it('reads upstream targets with their defaults', () => {
    const config = loadConfig({ MUNJA_CONFIG: configFile({ models: { pro: { upstreams: [{ baseUrl: 'http://10.0.0.5:8000/v1/', model: 'Qwen/Qwen3-8B', weight: 3 }] } } }) });
    expect(modelOf(config, 'pro')!.target).toEqual({
      kind: 'upstreams',
      upstreams: [{ baseUrl: 'http://10.0.0.5:8000/v1', origin: 'http://10.0.0.5:8000', chatPath: '/v1/chat/completions', responsesPath: '/v1/responses', messagesPath: '/v1/messages', api: ['chat'], model: 'Qwen/Qwen3-8B', apiKey: null, weight: 3, maxConnections: 64 }],
    });
  });

  it('reads an upstream\'s engine with its saturation thresholds, and the polling settings', () => {
    const config = loadConfig({}, {
      upstream: { engineSignals: { pollMs: 1_000 } },
      models: { pro: { upstreams: [{ baseUrl: 'http://10.0.0.5:8000/v1', engine: 'vllm', saturation: { queueDepth: 4 } }, { baseUrl: 'http://10.0.0.6:8000/v1' }] } },
    });
    expect(modelOf(config, 'pro')!.target).toMatchObject({
      kind: 'upstreams',
      engineAware: true,
      upstreams: [{ engine: 'vllm', saturation: { queueDepth: 4, kvCacheUsage: 0.9 } }, { baseUrl: 'http://10.0.0.6:8000/v1' }],
    });
    const [, plain] = (modelOf(config, 'pro')!.target as { upstreams: readonly object[] }).upstreams;
    expect(plain).not.toHaveProperty('engine');
    expect(config.engineSignals).toEqual({ pollMs: 1_000, timeoutMs: 1_000, affinityEntries: 100_000 });
    expect(loadConfig({}).engineSignals.pollMs).toBe(2_000);
    expect(() => loadConfig({}, { models: { pro: { upstreams: [{ baseUrl: 'http://10.0.0.5:8000/v1', saturation: { queueDepth: 4 } }] } } })).toThrow(/saturation needs "engine"/);
    expect(() => loadConfig({ MUNJA_CONFIG: configFile({ models: { pro: { upstreams: [{ baseUrl: 'http://10.0.0.5:8000/v1', engine: 'tgi' }] } } }) })).toThrow(/engine/);
    expect(() => loadConfig({ MUNJA_CONFIG: configFile({ models: { pro: { upstreams: [{ baseUrl: 'http://10.0.0.5:8000/v1', engine: 'vllm', saturation: { kvCacheUsage: 1.5 } }] } } }) })).toThrow(/kvCacheUsage/);
    expect(() => loadConfig({ MUNJA_CONFIG: configFile({ upstream: { engineSignals: { pollMs: 10 } } }) })).toThrow(/pollMs/);
  });

  it('reads the APIs an upstream speaks, with their paths beside chat/completions', () => {
    const config = loadConfig({}, { models: { pro: { upstreams: [{ baseUrl: 'http://10.0.0.5:8000/api/v1/', api: ['messages', 'chat', 'responses'] }] } } });
    expect(config.models.find((model) => model.id === 'pro')!.target).toMatchObject({
      upstreams: [{ chatPath: '/api/v1/chat/completions', responsesPath: '/api/v1/responses', messagesPath: '/api/v1/messages', api: ['messages', 'chat', 'responses'] }],
    });
  });

  it('MUNJA_UPSTREAM_URL serves every documented id from one upstream', () => {
    const config = loadConfig({ MUNJA_UPSTREAM_URL: 'https://api.example.com/openai/v1', MUNJA_UPSTREAM_KEY: 'k', MUNJA_UPSTREAM_MODEL: 'gpt-x' });
    const byId = Object.fromEntries(config.models.map((model) => [model.id, model.target]));
    expect(Object.keys(byId).sort()).toEqual(['auto', 'default', 'fast', 'hrllm', 'pro']);
    expect(byId.pro).toMatchObject({ kind: 'upstreams', upstreams: [{ origin: 'https://api.example.com', chatPath: '/openai/v1/chat/completions', model: 'gpt-x', apiKey: 'k' }] });
    expect(byId.auto).toMatchObject({ kind: 'route' });
    const byName = loadConfig({ MUNJA_UPSTREAM_URL: 'http://127.0.0.1:11434/v1' });
    expect(byName.models.find((model) => model.id === 'fast')?.target).toMatchObject({ upstreams: [{ model: 'fast', apiKey: null }] });
  });

  it('accepts any OpenAI-compatible base path, not only /v1', () => {
    const gemini = loadConfig({ MUNJA_UPSTREAM_URL: 'https://generativelanguage.googleapis.com/v1beta/openai/' });
    expect(gemini.models.find((model) => model.id === 'pro')?.target).toMatchObject({
      upstreams: [{ origin: 'https://generativelanguage.googleapis.com', chatPath: '/v1beta/openai/chat/completions' }],
    });
    const file = loadConfig({ MUNJA_CONFIG: configFile({ models: { pro: { upstreams: [{ baseUrl: 'http://10.0.0.5:4000/api/openai' }] } } }) });
    expect(modelOf(file, 'pro')?.target).toMatchObject({ upstreams: [{ chatPath: '/api/openai/chat/completions' }] });
  });

  it('models in a file replace the default of their id and keep the others; "defaultModels": false serves only them', () => {
    const ollama = { fast: { upstreams: [{ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2:3b' }] } };
    const env = { MUNJA_CONFIG: configFile({ models: ollama }) };
    const kept = loadConfig(env);
    expect(kept.models.map((model) => model.id)).toEqual(['auto', 'default', 'pro', 'fast', 'hrllm']);
    expect(modelOf(kept, 'fast')!.target).toMatchObject({ kind: 'upstreams', upstreams: [{ model: 'llama3.2:3b' }] });
    expect(modelOf(kept, 'pro')!.target).toMatchObject({ kind: 'local' });
    expect(modelOf(kept, 'auto')!.target).toMatchObject({ kind: 'route', models: ['default', 'fast'] });
    expect(kept.keptDefaultModels).toEqual(['auto', 'default', 'pro', 'hrllm']);
    expect(modelIdsFrom(env)).toEqual(['auto', 'default', 'pro', 'fast', 'hrllm']);

    const added = loadConfig({ MUNJA_CONFIG: configFile({ models: { mine: { upstreams: [{ baseUrl: 'http://h/v1' }] }, auto: { route: ['mine'] } } }) });
    expect(added.models.map((model) => model.id)).toEqual(['auto', 'default', 'pro', 'fast', 'hrllm', 'mine']);
    expect(modelOf(added, 'auto')!.target).toMatchObject({ models: ['mine'] });

    const alone = { MUNJA_CONFIG: configFile({ defaultModels: false, models: ollama }) };
    expect(loadConfig(alone).models.map((model) => model.id)).toEqual(['fast']);
    expect(loadConfig(alone).keptDefaultModels).toEqual([]);
    expect(modelIdsFrom(alone)).toEqual(['fast']);
    expect(loadConfig({}).keptDefaultModels).toEqual([]);
    expect(() => loadConfig({ MUNJA_CONFIG: configFile({ defaultModels: false, models: { auto: { route: ['default'] } } }) })).toThrow(/unknown model "default"/);
    expect(() => loadConfig({ MUNJA_CONFIG: configFile({ defaultModels: 'no' }) })).toThrow(/defaultModels/);
  });

  it('refuses MUNJA_UPSTREAM_URL together with models in the config file', () => {
    expect(() => loadConfig({ MUNJA_UPSTREAM_URL: 'http://h/v1', MUNJA_CONFIG: configFile({ models: { x: { local: {} } } }) })).toThrow(/not both/);
  });
});
