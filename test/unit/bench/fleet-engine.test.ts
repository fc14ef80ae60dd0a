import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineModel, type EngineParams, type TokenSink } from '../../../bench/fleet/engine-model.ts';
import { createEngineServer, promptOf, replyToken } from '../../../bench/fleet/engine-server.ts';
import { BLOCK_TOKENS, CHARS_PER_TOKEN } from '../../../bench/fleet/prefix-cache.ts';

const PARAMS: EngineParams = { maxBatch: 4, stepBaseMs: 10, stepPerSequenceMs: 2, prefillMsPerToken: 0.1, kvBlocks: 100, maxBatchedTokens: 10_000 };

/** A prompt of `blocks` full cache blocks, distinct for each `seed`. */
const promptOfBlocks = (blocks: number, seed: string) => seed.padEnd(blocks * BLOCK_TOKENS * CHARS_PER_TOKEN, '.');

function recorder(): TokenSink & { tokens: number; finished: boolean; cached: number } {
  return {
    tokens: 0,
    finished: false,
    cached: -1,
    token() {
      this.tokens++;
    },
    done(_prompt, cachedTokens) {
      this.finished = true;
      this.cached = cachedTokens;
    },
  };
}

/** Steps the engine until it is idle; the steps' durations. */
function runToIdle(engine: EngineModel): number[] {
  const steps: number[] = [];
  for (let ms = engine.beginStep(); ms !== null; ms = engine.beginStep()) {
    steps.push(ms);
    engine.endStep();
  }
  return steps;
}

describe('the simulated engine', () => {
  it('takes longer per step, so per token, the larger the running batch', () => {
    const alone = new EngineModel(PARAMS);
    alone.submit('user: hi\n', 3, recorder());
    const single = runToIdle(alone);
    const full = new EngineModel(PARAMS);
    for (let i = 0; i < 4; i++) full.submit(`user: hi ${i}\n`, 3, recorder());
    const batched = runToIdle(full);
    expect(single).toHaveLength(3);
    expect(batched).toHaveLength(3);
    // The decode steps after the prefill: 10 + 2 × running.
    expect(single[1]).toBe(12);
    expect(batched[1]).toBe(18);
  });

  it('queues what exceeds the batch, first come first served', () => {
    const engine = new EngineModel(PARAMS);
    const sinks = Array.from({ length: 6 }, () => recorder());
    sinks.forEach((sink, i) => engine.submit(`user: ${i}\n`, 2, sink));
    engine.beginStep();
    expect(engine.running).toBe(4);
    expect(engine.waiting).toBe(2);
    engine.endStep();
    engine.beginStep();
    engine.endStep();
    expect(sinks.slice(0, 4).every((sink) => sink.finished)).toBe(true);
    expect(sinks[4]!.tokens).toBe(0);
    runToIdle(engine);
    expect(sinks.every((sink) => sink.finished && sink.tokens === 2)).toBe(true);
  });

  it('prefills a prompt whose prefix it holds in its cache faster than a new one of the same length', () => {
    const engine = new EngineModel(PARAMS);
    const history = promptOfBlocks(20, 'conversation A');
    engine.submit(history, 1, recorder());
    runToIdle(engine);
    const continued = recorder();
    engine.submit(`${history}${promptOfBlocks(2, 'turn 2')}`, 1, continued);
    const [warm] = runToIdle(engine);
    const cold = new EngineModel(PARAMS);
    cold.submit(`${promptOfBlocks(20, 'conversation B')}${promptOfBlocks(2, 'turn 2')}`, 1, recorder());
    const [fresh] = runToIdle(cold);
    expect(continued.cached).toBe(20 * BLOCK_TOKENS);
    expect(warm).toBeLessThan(fresh!);
    expect(fresh! - warm!).toBeCloseTo(20 * BLOCK_TOKENS * PARAMS.prefillMsPerToken, 6);
  });

  it('prefills a long prompt in chunks within the step budget, decoding the batch meanwhile, running requests first', () => {
    const engine = new EngineModel({ ...PARAMS, maxBatchedTokens: 100 });
    const short = recorder();
    engine.submit('user: hi\n', 5, short);
    engine.beginStep();
    engine.endStep();
    expect(short.tokens).toBe(1);
    const long = recorder();
    engine.submit(promptOfBlocks(15, 'long'), 1, long);
    const later = recorder();
    engine.submit('user: later\n', 1, later);
    // 240 prompt tokens, 99 a step (one token of the budget goes to the decode): 99, 99, then 42.
    const steps: number[] = [];
    for (let i = 0; i < 2; i++) {
      steps.push(engine.beginStep()!);
      engine.endStep();
    }
    expect(short.tokens).toBe(3);
    expect(long.tokens).toBe(0);
    expect(later.tokens).toBe(0);
    expect(steps[0]).toBeCloseTo(10 + 2 * 2 + 0.1 * 99, 6);
    // The last chunk leaves room in the budget: the request behind it is admitted and prefilled too.
    expect(engine.beginStep()).toBeCloseTo(10 + 2 * 3 + 0.1 * (42 + 3), 6);
    engine.endStep();
    expect([short.tokens, long.tokens, later.tokens]).toEqual([4, 1, 1]);
    runToIdle(engine);
    expect(later.finished && short.finished && long.finished).toBe(true);
  });

  it('forgets the least recently used prefix when the KV cache needs the room', () => {
    const engine = new EngineModel({ ...PARAMS, kvBlocks: 50 });
    const first = promptOfBlocks(30, 'first');
    engine.submit(first, 1, recorder());
    runToIdle(engine);
    engine.submit(promptOfBlocks(30, 'second'), 1, recorder());
    runToIdle(engine);
    const again = recorder();
    engine.submit(first, 1, again);
    runToIdle(engine);
    expect(again.cached).toBeLessThan(30 * BLOCK_TOKENS - BLOCK_TOKENS);
  });

  it('counts only the blocks of running requests as KV cache in use, as vLLM does', () => {
    const engine = new EngineModel(PARAMS);
    engine.submit(promptOfBlocks(10, 'a'), 16, recorder());
    engine.beginStep();
    expect(engine.kvCacheUsage).toBeCloseTo(11 / 100, 6);
    runToIdle(engine);
    expect(engine.kvCacheUsage).toBe(0);
  });

  it('refuses a request that could never fit in its KV cache', () => {
    const engine = new EngineModel(PARAMS);
    expect(() => engine.submit(promptOfBlocks(101, 'big'), 1, recorder())).toThrow(/KV blocks/);
  });
});

describe('the simulated engine server', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  async function start(): Promise<string> {
    const server = createEngineServer(new EngineModel(PARAMS));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('publishes the queue, the batch and the KV cache under vLLM metric names', async () => {
    const origin = await start();
    const text = await (await fetch(`${origin}/metrics`)).text();
    for (const name of ['vllm:num_requests_waiting', 'vllm:num_requests_running', 'vllm:kv_cache_usage_perc', 'vllm:prefix_cache_hits_total']) {
      expect(text).toMatch(new RegExp(`^${name}\\{[^}]*\\} 0$`, 'm'));
    }
  });

  it('streams max_tokens tokens as chat completion chunks, then the usage and [DONE]', async () => {
    const origin = await start();
    const messages = [{ role: 'user', content: 'hello' }];
    const response = await fetch(`${origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sim', messages, max_tokens: 3, stream: true, stream_options: { include_usage: true } }),
    });
    const events = (await response.text()).split('\n\n').filter((event) => event.startsWith('data: ')).map((event) => event.slice(6));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event) as { choices: { delta: { content?: string }; finish_reason: string | null }[]; usage?: { completion_tokens: number; prompt_tokens: number } });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe([0, 1, 2].map(replyToken).join(''));
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('length');
    expect(chunks.at(-1)!.usage).toMatchObject({ completion_tokens: 3, prompt_tokens: Math.ceil(promptOf(messages).length / CHARS_PER_TOKEN) });
  });

  it('answers a body without messages with a 400 in the OpenAI error shape', async () => {
    const origin = await start();
    const response = await fetch(`${origin}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'sim' }) });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { message: expect.stringMatching(/messages/) } });
  });
});
