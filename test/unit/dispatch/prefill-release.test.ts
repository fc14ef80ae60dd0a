// An engine-aware upstream carries a request's prompt tokens from the attempt's start until its
// engine has prefilled them, which a stream's first bytes say, not until the reply ends: a long
// reply does not keep its engine looking busy with prefill it has done. A JSON reply's tokens
// leave at its end; a failed stream's, at the failure.
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../src/auth/authenticator.ts';
import type { ModelConfig, ResilienceConfig, UpstreamConfig } from '../../../src/config/config-types.ts';
import { DEFAULT_ENGINE_SATURATION } from '../../../src/config/default-config.ts';
import type { Completion, OutcomeListener } from '../../../src/dispatch/dispatch.ts';
import { EngineChoice } from '../../../src/dispatch/engine-choice.ts';
import { InFlight } from '../../../src/dispatch/in-flight.ts';
import { RetryBudget } from '../../../src/dispatch/retry-budget.ts';
import { sendToUpstreams, type UpstreamDispatchDeps } from '../../../src/dispatch/upstream-attempts.ts';
import { UpstreamHealth } from '../../../src/dispatch/upstream-health.ts';
import { recordingResponse, streamContext } from '../../helpers/recording-response.ts';

const RESILIENCE: ResilienceConfig = { retry: { budgetPercent: 10, reserve: 10, backoffMs: 0 }, breaker: { consecutiveFailures: 5, ejectMs: 60_000 }, rateLimitBackoffMaxMs: 5_000 };
const UPSTREAM: UpstreamConfig = {
  baseUrl: 'http://engine/v1', origin: 'http://engine', chatPath: '/v1/chat/completions', responsesPath: '/v1/responses', messagesPath: '/v1/messages',
  api: ['chat'], model: 'm', apiKey: null, weight: 1, maxConnections: 4, engine: 'vllm', saturation: DEFAULT_ENGINE_SATURATION,
};
const MODEL = { id: 'm', target: { kind: 'upstreams', upstreams: [UPSTREAM], engineAware: true }, price: null } as unknown as ModelConfig;
const PRINCIPAL: Principal = { keyId: 'key_a', accountId: 'acct_a', models: null, limits: { rpm: 1, tpm: 1 } };
const CONTROLLER = { pause() {}, resume() {}, abort() {}, rawHeaders: null } as unknown as Dispatcher.DispatchController;
const CHUNK = 'data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n';
const FINISH = 'data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n';
const PROMPT_TOKENS = 3_000;

/** One request of PROMPT_TOKENS through the dispatch path to an engine whose handler the test plays. */
function dispatched(stream: boolean) {
  const signals = { saturation: () => 0.1, began() {}, ended() {} };
  const inFlight = new InFlight();
  const health = new UpstreamHealth(RESILIENCE);
  const engines = new EngineChoice(health, inFlight, signals, 10);
  let handler: Dispatcher.DispatchHandler | undefined;
  const dispatcher = { dispatch: (_options: unknown, given: Dispatcher.DispatchHandler) => { handler = given; return true; } };
  const deps = {
    pools: { get: () => dispatcher }, health, inFlight, engines, retryBudget: new RetryBudget(RESILIENCE.retry), resilience: RESILIENCE,
    timeouts: { connectTimeoutMs: 1_000, firstByteTimeoutMs: 1_000, responseTimeoutMs: 1_000, idleTimeoutMs: 1_000, maxEventBytes: 1024 * 1024 },
  } as unknown as UpstreamDispatchDeps;
  const context = streamContext(recordingResponse().res);
  const completion = {
    principal: PRINCIPAL, client: context, streamTo: stream ? context : null, publicModel: 'm', model: MODEL, maxTokens: 16, promptTokens: PROMPT_TOKENS,
    request: { messages: [{ role: 'user', content: 'hello' }], body: { model: 'm', messages: [{ role: 'user', content: 'hello' }], stream }, source: null, includeUsage: false },
    headers: {}, asBytes: false, native: null, translator: null,
  } as unknown as Completion;
  const outcomes: string[] = [];
  const listener: OutcomeListener = { succeeded: () => outcomes.push('succeeded'), failed: () => outcomes.push('failed'), withdrawn: () => outcomes.push('withdrawn') };
  sendToUpstreams(deps, completion, MODEL.target as never, listener);
  if (handler === undefined) throw new Error('nothing was dispatched');
  handler.onRequestStart!(CONTROLLER, {});
  return { handler, outcomes, tokens: () => engines.tokensInFlight(UPSTREAM) };
}

describe('prefill load of an engine-aware attempt', () => {
  it("leaves its engine's count at the stream's first bytes, and the reply's end takes nothing more", () => {
    const { handler, outcomes, tokens } = dispatched(true);
    expect(tokens()).toBe(PROMPT_TOKENS);
    handler.onResponseStart!(CONTROLLER, 200, { 'content-type': 'text/event-stream' }, '');
    expect(tokens()).toBe(PROMPT_TOKENS);
    handler.onResponseData!(CONTROLLER, Buffer.from(CHUNK));
    expect(tokens()).toBe(0);
    handler.onResponseData!(CONTROLLER, Buffer.from(FINISH));
    handler.onResponseEnd!(CONTROLLER, {});
    expect(outcomes).toEqual(['succeeded']);
    expect(tokens()).toBe(0);
  });

  it('a JSON reply carries its tokens to its end', () => {
    const { handler, outcomes, tokens } = dispatched(false);
    handler.onResponseStart!(CONTROLLER, 200, { 'content-type': 'application/json' }, '');
    handler.onResponseData!(CONTROLLER, Buffer.from('{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],'));
    expect(tokens()).toBe(PROMPT_TOKENS);
    handler.onResponseData!(CONTROLLER, Buffer.from('"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}'));
    handler.onResponseEnd!(CONTROLLER, {});
    expect(outcomes).toEqual(['succeeded']);
    expect(tokens()).toBe(0);
  });

  it('an attempt that fails before its stream starts takes its tokens off as it ends', () => {
    const { handler, outcomes, tokens } = dispatched(true);
    handler.onResponseStart!(CONTROLLER, 400, { 'content-type': 'application/json' }, '');
    handler.onResponseData!(CONTROLLER, Buffer.from('{"error":{"message":"bad"}}'));
    handler.onResponseEnd!(CONTROLLER, {});
    expect(outcomes).toEqual(['failed']);
    expect(tokens()).toBe(0);
  });
});
