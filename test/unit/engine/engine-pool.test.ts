import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnginePool } from '../../../src/engine/engine-pool.ts';
import type { EngineTask } from '../../../src/engine/engine-types.ts';
import { generate } from '../../../src/engine/local-engine.ts';
import { ApiError } from '../../../src/errors/api-error.ts';
import { countPromptTokens } from '../../../src/tokens/count-tokens.ts';

const TASK: EngineTask = {
  messages: [{ role: 'user', content: 'Pozdrav! Kakvo je vrijeme na moru?' }],
  language: 'hr',
  seed: 99,
  temperature: 0.8,
  topP: 0.95,
  maxTokens: 256,
  n: 2,
  stop: [],
};

describe('EnginePool (real worker threads)', () => {
  const pool = new EnginePool({ maxThreads: 2, offThreadPromptChars: 1024 });

  beforeAll(() => pool.warmUp());
  afterAll(() => pool.close());

  it('warms up a worker', () => {
    expect(pool.stats().threads).toBeGreaterThanOrEqual(1);
  });

  it('generates on a worker exactly what the engine generates inline', async () => {
    await expect(pool.generate(TASK)).resolves.toEqual(generate(TASK));
  });

  it('counts small prompts inline and large prompts on a worker, with the same result', async () => {
    const large = [{ role: 'user', content: 'Ovo je dugačka rečenica o Jadranu. '.repeat(200) }];
    await expect(pool.countPromptTokens(TASK.messages)).resolves.toBe(countPromptTokens(TASK.messages));
    await expect(pool.countPromptTokens(large)).resolves.toBe(countPromptTokens(large));
    const result = await pool.generate({ ...TASK, messages: large });
    expect(result.promptTokens).toBe(countPromptTokens(large));
  });

  it('maps a task the worker cannot run to engine_error', async () => {
    const broken = { ...TASK, messages: null } as unknown as EngineTask;
    await expect(pool.generate(broken)).rejects.toMatchObject({ name: 'ApiError', code: 'engine_error' });
    await expect(pool.generate(TASK)).resolves.toBeDefined();
  });

  it('sends the tasks of one turn as a batch: each result goes to its own request', async () => {
    const tasks = Array.from({ length: 10 }, (_, index) => ({ ...TASK, seed: index, n: 1, maxTokens: 8 + index }));
    const results = await Promise.all(tasks.map((task) => pool.generate(task)));
    results.forEach((result, index) => expect(result).toEqual(generate(tasks[index]!)));
  });

  it('fails only the task of a batch that fails', async () => {
    const broken = { ...TASK, messages: null } as unknown as EngineTask;
    const settled = await Promise.allSettled([pool.generate({ ...TASK, seed: 1 }), pool.generate(broken), pool.generate({ ...TASK, seed: 2 })]);
    expect(settled[0]).toEqual({ status: 'fulfilled', value: generate({ ...TASK, seed: 1 }) });
    expect(settled[1]).toMatchObject({ status: 'rejected', reason: { name: 'ApiError', code: 'engine_error' } });
    expect(settled[2]).toEqual({ status: 'fulfilled', value: generate({ ...TASK, seed: 2 }) });
  });

  it('batches more tasks than one message holds', async () => {
    const tasks = Array.from({ length: 150 }, (_, index) => ({ ...TASK, seed: index, n: 1, maxTokens: 4 }));
    const results = await Promise.all(tasks.map((task) => pool.generate(task)));
    results.forEach((result, index) => expect(result).toEqual(generate(tasks[index]!)));
  });

  it('rejects with the abort reason, before and while running', async () => {
    const reason = new Error('client went away');
    await expect(pool.generate(TASK, AbortSignal.abort(reason))).rejects.toBe(reason);
    const controller = new AbortController();
    const running = pool.generate(TASK, controller.signal);
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
  });
});

describe('EnginePool without local models', () => {
  it('keeps no thread after warm-up, and still counts a prompt when asked (on a thread started then)', async () => {
    const pool = new EnginePool({ maxThreads: 1, localModels: false });
    try {
      await pool.warmUp();
      expect(pool.stats().threads).toBe(0);
      await expect(pool.countPromptTokens(TASK.messages)).resolves.toBe(countPromptTokens(TASK.messages));
    } finally {
      await pool.close();
    }
  });
});

describe('EnginePool limits', () => {
  it('rejects with overloaded when the queue is full', async () => {
    const pool = new EnginePool({ maxThreads: 1, maxQueue: 1 });
    try {
      const settled = await Promise.allSettled(
        Array.from({ length: 20 }, (_, index) => pool.generate({ ...TASK, seed: index })),
      );
      const rejected = settled.filter((outcome) => outcome.status === 'rejected');
      expect(settled.some((outcome) => outcome.status === 'fulfilled')).toBe(true);
      expect(rejected.length).toBeGreaterThan(0);
      for (const outcome of rejected) {
        expect(outcome.reason).toBeInstanceOf(ApiError);
        expect((outcome.reason as ApiError).code).toBe('overloaded');
      }
    } finally {
      await pool.close();
    }
  });

  it('runs the tasks of the current turn when closed during it', async () => {
    const pool = new EnginePool({ maxThreads: 1 });
    const running = pool.generate(TASK);
    await pool.close();
    await expect(running).resolves.toEqual(generate(TASK));
  });

  it('refuses work after close with shutting_down', async () => {
    const pool = new EnginePool({ maxThreads: 1 });
    await pool.close();
    await expect(pool.generate(TASK)).rejects.toMatchObject({ code: 'shutting_down' });
    await expect(pool.close()).resolves.toBeUndefined();
  });
});
