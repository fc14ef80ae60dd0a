// Single flight in the response cache: an identical miss waits for the first one's reply (a hit
// once it is stored), at most singleFlightWaitMs; a first one that stores nothing releases it.
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../src/auth/authenticator.ts';
import type { ModelConfig } from '../../../src/config/config-types.ts';
import { ResponseCache } from '../../../src/cache/response-cache.ts';
import type { ChatRequest } from '../../../src/validation/chat-request.ts';

const principal = { keyId: 'key_1', accountId: 'acct_1', models: null } as unknown as Principal;
const model = { id: 'm', cache: { enabled: true, ttlSeconds: 60, deterministicOnly: true } } as unknown as ModelConfig;
const request = { model: 'm', stream: false, includeUsage: false, temperature: 0, seed: null, body: { model: 'm', messages: [], temperature: 0 } } as unknown as ChatRequest;
const REPLY = '{"id":"chatcmpl-a","created":1,"choices":[{"finish_reason":"stop"}]}';

function cache(singleFlightWaitMs: number): ResponseCache {
  return new ResponseCache({ maxBytes: 1_000_000, maxEntryBytes: 1_000_000, singleFlightWaitMs, maxAccountShare: 1 }, [model]);
}

describe('single flight', () => {
  it('answers a waiting request from the first one\'s stored reply', async () => {
    const responses = cache(600_000);
    const first = responses.lookUp('', principal, request, model, 'chat');
    if (first === null || first instanceof Promise || first.kind !== 'miss') throw new Error('expected a miss');
    const second = responses.lookUp('', principal, request, model, 'chat');
    expect(second).toBeInstanceOf(Promise);
    first.fill.finishJson(REPLY);
    await expect(second).resolves.toMatchObject({ kind: 'hit' });
  });

  it('releases a waiting request when the first one stores nothing', async () => {
    const responses = cache(600_000);
    const first = responses.lookUp('', principal, request, model, 'chat');
    if (first === null || first instanceof Promise || first.kind !== 'miss') throw new Error('expected a miss');
    const second = responses.lookUp('', principal, request, model, 'chat');
    first.fill.abandon();
    await expect(second).resolves.toMatchObject({ kind: 'miss' });
  });

  it('stops waiting after singleFlightWaitMs', async () => {
    const responses = cache(1);
    const first = responses.lookUp('', principal, request, model, 'chat');
    expect(first).toMatchObject({ kind: 'miss' });
    await expect(responses.lookUp('', principal, request, model, 'chat')).resolves.toMatchObject({ kind: 'miss' });
  });

  it('does not wait when singleFlightWaitMs is 0', () => {
    const responses = cache(0);
    expect(responses.lookUp('', principal, request, model, 'chat')).toMatchObject({ kind: 'miss' });
    expect(responses.lookUp('', principal, request, model, 'chat')).toMatchObject({ kind: 'miss' });
  });
});
