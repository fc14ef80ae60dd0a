// Evaluates an expression inside every worker thread of this process (the engine's piscina
// threads), through the inspector protocol's NodeWorker domain: a way to look at the workers'
// own Object.prototype from a test, with nothing added to the workers' code. An idle piscina
// thread sleeps in Atomics.wait and handles inspector messages only while it runs a task, so the
// caller passes `poke`, which gives the workers work (a local-engine request) until they answer.
import { Session } from 'node:inspector/promises';
import { vi } from 'vitest';

export interface WorkerRealms {
  /** Worker threads attached so far. */
  readonly count: number;
  /** The value of `expression` (JSON-serialisable) in each worker. */
  evaluate(expression: string, poke: () => Promise<unknown>, guardMs?: number): Promise<unknown[]>;
  close(): Promise<void>;
}

interface Reply {
  readonly id: number;
  readonly result?: { readonly result?: { readonly value?: unknown }; readonly exceptionDetails?: { readonly text?: string } };
  readonly error?: { readonly message?: string };
}

export async function attachWorkerRealms(guardMs = 5_000): Promise<WorkerRealms> {
  const session = new Session();
  session.connect();
  const workers = new Set<string>();
  const replies = new Map<string, (reply: Reply) => void>();
  session.on('NodeWorker.attachedToWorker', (message) => workers.add(message.params.sessionId));
  session.on('NodeWorker.detachedFromWorker', (message) => workers.delete(message.params.sessionId));
  session.on('NodeWorker.receivedMessageFromWorker', (message) => {
    const reply = JSON.parse(message.params.message) as Reply;
    replies.get(`${message.params.sessionId}:${reply.id}`)?.(reply);
  });
  await session.post('NodeWorker.enable', { waitForDebuggerOnStart: false });
  // The caller checks `count`: none attached within the guard leaves it 0.
  await vi.waitUntil(() => workers.size > 0, { timeout: guardMs, interval: 20 }).catch(() => {});
  let nextId = 1;

  function ask(sessionId: string, expression: string): Promise<unknown> {
    const id = nextId++;
    const answered = new Promise<Reply>((resolve) => replies.set(`${sessionId}:${id}`, resolve));
    const message = JSON.stringify({ id, method: 'Runtime.evaluate', params: { expression, returnByValue: true } });
    void session.post('NodeWorker.sendMessageToWorker', { sessionId, message });
    return answered.then((reply) => {
      replies.delete(`${sessionId}:${id}`);
      if (reply.error || reply.result?.exceptionDetails) throw new Error(`worker evaluation failed: ${JSON.stringify(reply)}`);
      return reply.result?.result?.value;
    });
  }

  return {
    get count() {
      return workers.size;
    },
    async evaluate(expression, poke, evaluateGuardMs = 10_000) {
      let settled = false;
      const all = Promise.all([...workers].map((sessionId) => ask(sessionId, expression)));
      all.then(() => { settled = true; }, () => { settled = true; });
      const stopAt = Date.now() + evaluateGuardMs;
      while (!settled) {
        if (Date.now() > stopAt) throw new Error('worker threads did not answer the inspector in time');
        await poke();
      }
      return all;
    },
    async close() {
      await session.post('NodeWorker.disable');
      session.disconnect();
    },
  };
}
