// The admission queue's bookkeeping: it takes a request only while its model is full or others
// wait, refuses past its bound and at its deadline, lets a client that leaves go unsent, and sends
// the heads in order once there is room.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Principal } from '../../../src/auth/authenticator.ts';
import type { ModelConfig, PriorityConfig, ResilienceConfig, UpstreamConfig } from '../../../src/config/config-types.ts';
import { DEFAULT_ENGINE_SATURATION } from '../../../src/config/default-config.ts';
import { AdmissionQueue } from '../../../src/dispatch/admission-queue.ts';
import type { Completion, OutcomeListener } from '../../../src/dispatch/dispatch.ts';
import { EngineChoice } from '../../../src/dispatch/engine-choice.ts';
import { InFlight } from '../../../src/dispatch/in-flight.ts';
import { RetryBudget } from '../../../src/dispatch/retry-budget.ts';
import { type UpstreamDispatchDeps, sendToUpstreams } from '../../../src/dispatch/upstream-attempts.ts';
import { UpstreamHealth } from '../../../src/dispatch/upstream-health.ts';
import { ApiError } from '../../../src/errors/api-error.ts';

const RESILIENCE: ResilienceConfig = { retry: { budgetPercent: 10, reserve: 10, backoffMs: 0 }, breaker: { consecutiveFailures: 5, ejectMs: 60_000 }, rateLimitBackoffMaxMs: 5_000 };
const PRIORITY: PriorityConfig = { default: 'normal', keys: new Map([['key_high', 'high']]), accounts: new Map() };

const UPSTREAM: UpstreamConfig = {
  baseUrl: 'http://engine/v1', origin: 'http://engine', chatPath: '/v1/chat/completions', responsesPath: '/v1/responses', messagesPath: '/v1/messages',
  api: ['chat'], model: 'm', apiKey: null, weight: 1, maxConnections: 4, engine: 'vllm', saturation: DEFAULT_ENGINE_SATURATION,
};
const MODEL = { id: 'm', target: { kind: 'upstreams', upstreams: [UPSTREAM], engineAware: true } } as unknown as ModelConfig;

/** What happened to each request, in order: `sent` when it reached an upstream attempt. */
const events: string[] = [];

class Request implements OutcomeListener {
  readonly name: string;
  readonly completion: Completion;
  readonly client = { requestId: 'r', aborted: false, onAbort: null as (() => void) | null, queuedMs: null as number | null };
  constructor(name: string, keyId = 'key_a', accountId = 'acct_a', model = MODEL) {
    this.name = name;
    const principal: Principal = { keyId, accountId, models: null, limits: { rpm: 1, tpm: 1 } };
    this.completion = { principal, client: this.client, model, native: null, request: { messages: [], body: {} } } as unknown as Completion;
  }
  succeeded(): void {
    events.push(`${this.name} succeeded`);
  }
  failed(error: unknown): void {
    events.push(`${this.name} ${(error as Error).message === 'sent' ? 'sent' : 'failed'}`);
  }
  withdrawn(error: unknown): void {
    events.push(`${this.name} withdrawn ${(error as ApiError).code}`);
  }
}

function setup(maxWaiting = 10, timeoutMs = 1_000) {
  const inFlight = new InFlight();
  let score = 2;
  const signals = { saturation: () => score, began() {}, ended() {} };
  const health = new UpstreamHealth(RESILIENCE);
  const engines = new EngineChoice(health, inFlight, signals, 10);
  const queue = new AdmissionQueue({ maxWaiting, timeoutMs }, PRIORITY, engines);
  // An attempt fails as it starts, with `sent`: what reached an upstream is told apart from what did not.
  const pools = { get() { throw new Error('sent'); } };
  const deps = { pools, health, inFlight, engines, queue, retryBudget: new RetryBudget(RESILIENCE.retry), resilience: RESILIENCE, timeouts: {} } as unknown as UpstreamDispatchDeps;
  const submit = (request: Request) => sendToUpstreams(deps, request.completion, request.completion.model.target as never, request);
  return { queue, submit, setScore: (next: number) => { score = next; } };
}

beforeEach(() => {
  events.length = 0;
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('AdmissionQueue', () => {
  it('sends at once while the model has room and nobody waits', () => {
    const { queue, submit, setScore } = setup();
    setScore(0.5);
    submit(new Request('a'));
    expect(events).toEqual(['a sent']);
    expect(queue.waiting).toBe(0);
  });

  it('holds requests while the model is full, then sends them by band, and a newcomer does not pass those waiting', async () => {
    const { queue, submit, setScore } = setup();
    submit(new Request('low-1'));
    submit(new Request('high-1', 'key_high', 'acct_b'));
    expect(queue.waiting).toBe(2);
    expect(queue.stats()).toEqual({ m: 2 });
    expect(events).toEqual([]);
    setScore(0.5);
    // Room now, but two wait: the newcomer goes behind them.
    submit(new Request('low-2'));
    expect(events).toEqual([]);
    // The heads are sent on the next microtask.
    await Promise.resolve();
    expect(events).toEqual(['high-1 sent', 'low-1 sent', 'low-2 sent']);
    expect(queue.waiting).toBe(0);
  });

  it('gives models that share an engine its room in turn', async () => {
    const { submit, setScore } = setup();
    const other = { id: 'other', target: MODEL.target } as unknown as ModelConfig;
    submit(new Request('m-1'));
    submit(new Request('m-2'));
    submit(new Request('other-1', 'key_a', 'acct_a', other));
    setScore(0.5);
    submit(new Request('m-3'));
    await Promise.resolve();
    expect(events).toEqual(['m-1 sent', 'other-1 sent', 'm-2 sent', 'm-3 sent']);
  });

  it('refuses a request past the bound with 503 overloaded, at once', () => {
    const { queue, submit } = setup(2);
    submit(new Request('a'));
    submit(new Request('b'));
    submit(new Request('c'));
    expect(events).toEqual(['c withdrawn overloaded']);
    expect(queue.waiting).toBe(2);
  });

  it('refuses a request still waiting at the deadline with 503 overloaded and Retry-After', () => {
    const { queue, submit } = setup(10, 1_000);
    const request = new Request('a');
    let refusal: ApiError | null = null;
    request.withdrawn = (error) => { refusal = error as ApiError; };
    submit(request);
    vi.advanceTimersByTime(999);
    expect(refusal).toBeNull();
    vi.advanceTimersByTime(1);
    expect(refusal!.code).toBe('overloaded');
    expect(refusal!.status).toBe(503);
    expect(refusal!.headers).toMatchObject({ 'retry-after': '1' });
    expect(request.client.queuedMs).toBeGreaterThanOrEqual(0);
    expect(queue.waiting).toBe(0);
  });

  it('lets a client that leaves go unsent, and hands its abort back', async () => {
    const { queue, submit, setScore } = setup();
    const leaving = new Request('leaving');
    submit(leaving);
    submit(new Request('staying'));
    expect(leaving.client.onAbort).not.toBeNull();
    leaving.client.onAbort!();
    expect(events).toEqual(['leaving withdrawn client_closed']);
    expect(leaving.client.onAbort).toBeNull();
    expect(queue.waiting).toBe(1);
    setScore(0.5);
    queue.capacityFreed();
    await Promise.resolve();
    expect(events).toEqual(['leaving withdrawn client_closed', 'staying sent']);
  });
});
