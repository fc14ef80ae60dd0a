// The pool stops a task that runs past its deadline, or whose client left, by replacing its thread;
// the other tasks of its batch are answered all the same. On the default deadline.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EnginePool } from '../../../src/engine/engine-pool.ts';
import type { EngineTask } from '../../../src/engine/engine-types.ts';
import { generate } from '../../../src/engine/local-engine.ts';
import { costlyTools } from '../../helpers/costly-schemas.ts';

const TASK: EngineTask = {
  messages: [{ role: 'user', content: 'What is the weather?' }],
  language: 'en',
  seed: 7,
  temperature: 0.8,
  topP: 0.95,
  maxTokens: 256,
  n: 1,
  stop: [],
};

function costlyTask(): EngineTask {
  const structure = { tools: costlyTools(40), toolChoice: 'required' as const, parallelToolCalls: false, endsWithToolResult: false, json: false, jsonSchema: null };
  return { ...TASK, structure };
}

describe('EnginePool deadline and abandoned tasks', () => {
  const pool = new EnginePool({ maxThreads: 1 });

  beforeAll(() => pool.warmUp());
  afterAll(() => pool.close());

  it('answers a task whose schemas take past the deadline with 400, and the rest of its batch as usual', async () => {
    const costly = pool.generate(costlyTask());
    const plain = pool.generate(TASK); // same turn: same batch, behind the costly one
    await expect(costly).rejects.toMatchObject({ name: 'ApiError', code: 'invalid_value', status: 400 });
    await expect(plain).resolves.toEqual(generate(TASK));
    expect(pool.stats().tasks).toBe(0);
    await expect(pool.generate(TASK)).resolves.toEqual(generate(TASK));
  });

  it('stops a running task whose client left', async () => {
    const controller = new AbortController();
    const reason = new Error('client went away');
    const running = pool.generate(costlyTask(), controller.signal);
    await vi.waitFor(() => expect(pool.stats().queued).toBe(0)); // sent to the thread
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
    // Well before the task would have ended (tens of seconds of compiling), it is over.
    await vi.waitFor(() => expect(pool.stats().tasks).toBe(0));
    await expect(pool.generate(TASK)).resolves.toEqual(generate(TASK));
  });
});
