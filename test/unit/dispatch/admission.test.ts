// Cheap checks first: the request-count limit comes before tokenizing a prompt, a prompt far over
// the context by its characters is refused without tokenizing it, and a refused prompt uses its
// request (it counts against the rate as any request does).
import { describe, expect, it, vi } from 'vitest';
import type { Principal } from '../../../src/auth/authenticator.ts';
import { loadConfig } from '../../../src/config/load-config.ts';
import { admitCompletion } from '../../../src/dispatch/admission.ts';
import type { CompletionServiceDeps } from '../../../src/dispatch/admitted-completion.ts';
import { InFlight } from '../../../src/dispatch/in-flight.ts';
import { KeyInFlight } from '../../../src/dispatch/key-in-flight.ts';
import { UpstreamHealth } from '../../../src/dispatch/upstream-health.ts';
import { ApiError } from '../../../src/errors/api-error.ts';
import { ModelCatalog } from '../../../src/models/model-catalog.ts';
import { RouteChoice } from '../../../src/models/route-choice.ts';
import { MemoryLimiter } from '../../../src/ratelimit/memory-limiter.ts';
import type { UsageRecorder } from '../../../src/store/usage-recorder.ts';
import { countPromptTokens } from '../../../src/tokens/count-tokens.ts';
import type { ChatRequest } from '../../../src/validation/chat-request.ts';
import { validateChatRequest } from '../../../src/validation/validate-chat-request.ts';

const config = loadConfig({ MUNJA_DATA: '/nonexistent' }); // the default models: 32,768-token contexts

function service() {
  const countPrompt = vi.fn(async (messages: Parameters<typeof countPromptTokens>[0]) => countPromptTokens(messages));
  const inFlight = new InFlight();
  const deps = {
    catalog: new ModelCatalog(config.models),
    routes: new RouteChoice(new UpstreamHealth(config.resilience), inFlight),
    keyInFlight: new KeyInFlight(config.maxInFlightPerKey),
    limiter: new MemoryLimiter(config.limits),
    dispatch: { engine: { countPromptTokens: countPrompt } },
    usage: {} as UsageRecorder,
  } as unknown as CompletionServiceDeps;
  return { deps, countPrompt };
}

const principal = (rpm: number): Principal => ({ keyId: `key_${rpm}`, accountId: 'acct', models: null, limits: { rpm, tpm: 1_000_000 } });

const chat = (content: string): ChatRequest => validateChatRequest({ model: 'default', messages: [{ role: 'user', content }] });

/** The outcome of an admission, whether it decided at once (returned or thrown) or later. */
async function codeOf(admit: () => unknown): Promise<string> {
  try {
    await admit();
    return 'admitted';
  } catch (error) {
    return error instanceof ApiError ? error.code : String(error);
  }
}

/** Admits and settles at once: the request is counted, nothing runs. */
async function admitAndSettle(deps: CompletionServiceDeps, who: Principal, request: ChatRequest): Promise<string> {
  try {
    const admitted = await admitCompletion(deps, who, request);
    await deps.limiter.settle(admitted.lease!, 0);
    deps.keyInFlight.leave(who.keyId);
    return 'admitted';
  } catch (error) {
    return error instanceof ApiError ? error.code : String(error);
  }
}

describe('admitting a completion', () => {
  it('a key with its requests spent gets 429 for a huge prompt, and nothing is tokenized', async () => {
    const { deps, countPrompt } = service();
    const spent = principal(2);
    expect(await admitAndSettle(deps, spent, chat('hi'))).toBe('admitted');
    expect(await admitAndSettle(deps, spent, chat('hi'))).toBe('admitted');
    countPrompt.mockClear();
    expect(await codeOf(() => admitCompletion(deps, spent, chat('x'.repeat(3_900_000))))).toBe('rate_limit_exceeded');
    expect(countPrompt).not.toHaveBeenCalled();
  });

  it('a prompt far over the context by its characters is refused without tokenizing, and uses its request', async () => {
    const { deps, countPrompt } = service();
    const key = principal(2);
    expect(await codeOf(() => admitCompletion(deps, key, chat('word '.repeat(200_000))))).toBe('context_length_exceeded');
    expect(countPrompt).not.toHaveBeenCalled();
    expect(await admitAndSettle(deps, key, chat('hi'))).toBe('admitted');
    expect(await admitAndSettle(deps, key, chat('hi'))).toBe('rate_limit_exceeded');
  });

  it('a prompt over the context within that bound is tokenized, refused, and uses its request', async () => {
    const { deps, countPrompt } = service();
    const key = principal(2);
    // ~40,000 tokens in ~200,000 characters: under 16 characters per context token, over the context.
    expect(await codeOf(() => admitCompletion(deps, key, chat('word '.repeat(40_000))))).toBe('context_length_exceeded');
    expect(countPrompt).toHaveBeenCalledTimes(1);
    expect(await admitAndSettle(deps, key, chat('hi'))).toBe('admitted');
    expect(await admitAndSettle(deps, key, chat('hi'))).toBe('rate_limit_exceeded');
  });

  it('an admitted completion keeps its own x-ratelimit-* numbers when the next request is admitted', async () => {
    const { deps } = service();
    const key = principal(5);
    const first = await admitCompletion(deps, key, chat('hi'));
    const second = await admitCompletion(deps, key, chat('hi'));
    expect(first).toMatchObject({ requestsLimit: 5, requestsRemaining: 4, tokensLimit: 1_000_000 });
    expect(second).toMatchObject({ requestsLimit: 5, requestsRemaining: 3, tokensLimit: 1_000_000 });
    expect(first.tokensRemaining).toBeGreaterThan(second.tokensRemaining);
  });

  it('a prompt over the context is refused as too long, not as over the token limit', async () => {
    const { deps } = service();
    const key: Principal = { ...principal(100), limits: { rpm: 100, tpm: 40_000 } };
    expect(await codeOf(() => admitCompletion(deps, key, chat('word '.repeat(200_000))))).toBe('context_length_exceeded');
  });
});
