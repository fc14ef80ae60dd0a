// A key's response-cache setting (ApiKeyRecord.cache) in the cache's decision: `on` caches the
// key's deterministic requests on any model, `off` bars the key whatever the header says, null
// leaves it to the model's config and the header.
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../src/auth/authenticator.ts';
import { cacheUse, ResponseCache } from '../../../src/cache/response-cache.ts';
import type { ModelCacheConfig, ModelConfig } from '../../../src/config/config-types.ts';
import type { KeyCacheMode } from '../../../src/store/store.ts';
import type { ChatRequest } from '../../../src/validation/chat-request.ts';

const MODEL_ON: ModelCacheConfig = { enabled: true, ttlSeconds: 60, deterministicOnly: true };

function keyWith(cache: KeyCacheMode | null): Principal {
  return { keyId: `key_${cache ?? 'unset'}`, accountId: 'acct_1', models: null, limits: { rpm: 10, tpm: 1000 }, cache };
}

function chat(temperature: number): ChatRequest {
  return { model: 'm', stream: false, includeUsage: false, temperature, seed: null, body: { model: 'm', messages: [{ role: 'user', content: 'hi' }], temperature } } as unknown as ChatRequest;
}

const plainModel = { id: 'm', cache: null } as unknown as ModelConfig;
const cachingModel = { id: 'm', cache: MODEL_ON } as unknown as ModelConfig;

describe('the cache decision with a key setting', () => {
  it('leaves a key without a setting to the model and the header', () => {
    expect(cacheUse('', null, null)).toBeNull();
    expect(cacheUse('', null, MODEL_ON)).toBe('use');
    expect(cacheUse('on', null, null)).toBe('use');
    expect(cacheUse('off', null, MODEL_ON)).toBe('bypass');
    expect(cacheUse('off', null, null)).toBe('bypass');
  });

  it('turns the cache on for a key set on, on any model, unless the header says off', () => {
    expect(cacheUse('', 'on', null)).toBe('use');
    expect(cacheUse('refresh', 'on', null)).toBe('use');
    expect(cacheUse('off', 'on', null)).toBe('bypass');
  });

  it('bars a key set off, even when the model caches or the header asks', () => {
    expect(cacheUse('', 'off', MODEL_ON)).toBe('bypass');
    expect(cacheUse('on', 'off', null)).toBe('bypass');
    expect(cacheUse('refresh', 'off', MODEL_ON)).toBe('bypass');
    // Nothing about the cache concerns this request: its answer carries no header.
    expect(cacheUse('', 'off', null)).toBeNull();
  });

  it('stores and serves a key set on through a model without cache config', () => {
    const cache = new ResponseCache({ maxBytes: 1_000_000, maxEntryBytes: 1_000_000, singleFlightWaitMs: 0, maxAccountShare: 1 }, [plainModel]);
    const key = keyWith('on');
    const first = cache.lookUp('', key, chat(0), plainModel, 'chat');
    if (first === null || first instanceof Promise || first.kind !== 'miss') throw new Error('expected a miss');
    first.fill.finishJson('{"id":"chatcmpl-a","created":1,"choices":[{"finish_reason":"stop"}]}');
    expect(cache.lookUp('', key, chat(0), plainModel, 'chat')).toMatchObject({ kind: 'hit' });
    // The determinism rule still holds.
    expect(cache.lookUp('', key, chat(0.7), plainModel, 'chat')).toEqual({ kind: 'bypass' });
    // Another key of the account without a setting reads the same entry only where the cache is on for it.
    expect(cache.lookUp('', keyWith(null), chat(0), plainModel, 'chat')).toBeNull();
    expect(cache.lookUp('on', keyWith(null), chat(0), plainModel, 'chat')).toMatchObject({ kind: 'hit' });
  });

  it('neither reads nor fills for a key set off', () => {
    const cache = new ResponseCache({ maxBytes: 1_000_000, maxEntryBytes: 1_000_000, singleFlightWaitMs: 0, maxAccountShare: 1 }, [cachingModel]);
    const filled = cache.lookUp('', keyWith(null), chat(0), cachingModel, 'chat');
    if (filled === null || filled instanceof Promise || filled.kind !== 'miss') throw new Error('expected a miss');
    filled.fill.finishJson('{"id":"chatcmpl-a","created":1,"choices":[{"finish_reason":"stop"}]}');
    expect(cache.lookUp('', keyWith(null), chat(0), cachingModel, 'chat')).toMatchObject({ kind: 'hit' });
    expect(cache.lookUp('on', keyWith('off'), chat(0), cachingModel, 'chat')).toEqual({ kind: 'bypass' });
    expect(cache.lookUp('', keyWith('off'), chat(0), cachingModel, 'chat')).toEqual({ kind: 'bypass' });
  });
});
