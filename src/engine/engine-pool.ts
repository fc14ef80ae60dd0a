// The local engine's worker pool: generation and large prompt token counts run on piscina threads.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { ApiError } from '../errors/api-error.ts';
import type { PromptMessage } from '../tokens/count-tokens.ts';
import { countPromptTokensAdaptive, type InlineCounter, OFF_THREAD_PROMPT_CHARS } from '../tokens/token-pool.ts';
import type { EngineLanguage, EngineResult, EngineTask } from './engine-types.ts';
import type { EngineBatchOutcome, EngineWorkerRequest } from './engine-worker.ts';

export interface EnginePoolOptions {
  /** Default: min(available parallelism, 4). */
  readonly maxThreads?: number;
  /** Tasks waiting for a thread (besides one running per thread); beyond it requests fail with `overloaded`. Default 1024. */
  readonly maxQueue?: number | 'auto';
  /** Prompts longer than this many UTF-16 code units are counted on a worker. */
  readonly offThreadPromptChars?: number;
  /** How long an idle thread above the first is kept, in ms (piscina's default, 0, churns threads). */
  readonly idleTimeoutMs?: number;
  /**
   * False when no model runs on the local engine: no thread is kept and no tokenizer is loaded (the
   * o200k tables cost ~70 MiB per thread that loads them), so a gateway in front of model servers
   * only stays small. Default true.
   */
  readonly localModels?: boolean;
}

export interface EnginePoolStats {
  readonly threads: number;
  /** Batches waiting for a thread, plus the tasks of this turn not yet sent (0 when idle). */
  readonly queued: number;
  /** The most threads the pool runs. */
  readonly maxThreads: number;
  /** Thread time spent running tasks since the pool started, in ms: rises only (a rate-ready counter). */
  readonly busyMs: number;
}

const DEFAULT_MAX_QUEUE = 1024;
/** Tasks sent to a worker in one message at most (a turn with more sends several). */
const MAX_BATCH = 64;
const RETRY_SOON = { 'retry-after': '1' };
const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
// piscina signals a full queue only through these messages.
const QUEUE_FULL_MESSAGES = new Set(['Task queue is at limit', 'No task queue available and all Workers are busy']);
const WORKER_URL = new URL('./engine-worker.ts', import.meta.url).href;
const WARM_UP_LANGUAGES: readonly EngineLanguage[] = ['en', 'hr'];

/** A task waiting in the current turn's batch. */
class PendingTask {
  readonly request: EngineWorkerRequest;
  readonly resolve: (value: EngineResult | number) => void;
  readonly reject: (error: unknown) => void;

  constructor(request: EngineWorkerRequest, resolve: (value: EngineResult | number) => void, reject: (error: unknown) => void) {
    this.request = request;
    this.resolve = resolve;
    this.reject = reject;
  }
}

export class EnginePool {
  readonly #piscina: Piscina<readonly EngineWorkerRequest[], EngineBatchOutcome>;
  readonly #offThreadPromptChars: number;
  readonly #localModels: boolean;
  /** This thread's tokenizer, loaded by warmUp() only when local models are served. */
  #inline: InlineCounter | null = null;
  // Lets generate() hand the worker a count the caller already paid for (same messages array).
  readonly #countedPrompts = new WeakMap<readonly PromptMessage[], number>();
  #closed = false;
  /** The tasks of this event-loop turn, sent as one message by #flush (setImmediate, after the poll phase). */
  #batch: PendingTask[] = [];
  #flushScheduled = false;
  /** Tasks handed to run() and not yet settled, against #maxTasks. */
  #tasks = 0;
  readonly #maxTasks: number;
  readonly #flush = (): void => this.#sendBatch();

  constructor(options: EnginePoolOptions = {}) {
    const maxThreads = Math.max(1, Math.floor(options.maxThreads ?? Math.min(availableParallelism(), 4)));
    const maxQueue = options.maxQueue === 'auto' ? maxThreads ** 2 : (options.maxQueue ?? DEFAULT_MAX_QUEUE);
    this.#piscina = new Piscina({
      filename: WORKER_URL,
      minThreads: options.localModels === false ? 0 : 1,
      maxThreads,
      maxQueue,
      idleTimeout: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    });
    // Piscina's queue holds batches; the bound on tasks is ours, piscina's own (one task running
    // per thread, maxQueue waiting) applied to tasks.
    this.#maxTasks = maxQueue + maxThreads;
    this.#offThreadPromptChars = options.offThreadPromptChars ?? OFF_THREAD_PROMPT_CHARS;
    this.#localModels = options.localModels !== false;
  }

  /**
   * Rejects with ApiError `overloaded` (queue full), `engine_error` (the worker failed),
   * `shutting_down` (pool closed), or with `signal.reason` when aborted.
   */
  async generate(task: EngineTask, signal?: AbortSignal): Promise<EngineResult> {
    const promptTokens = this.#countedPrompts.get(task.messages);
    return (await this.#run({ kind: 'generate', task, promptTokens }, signal)) as EngineResult;
  }

  /** Inline for small prompts, on a worker for large ones. Remembered for a later generate(). */
  async countPromptTokens(messages: readonly PromptMessage[]): Promise<number> {
    const known = this.#countedPrompts.get(messages);
    if (known !== undefined) return known;
    const offThread = async (large: readonly PromptMessage[]) => (await this.#run({ kind: 'count', messages: large })) as number;
    const count = this.#inline === null
      ? await offThread(messages)
      : await countPromptTokensAdaptive(messages, this.#inline, offThread, this.#offThreadPromptChars);
    this.#countedPrompts.set(messages, count);
    return count;
  }

  /** Starts a thread and loads the tokenizer and vocabularies there and on this thread (only with local models). */
  async warmUp(): Promise<void> {
    if (!this.#localModels) return;
    const { countPromptTokens } = await import('../tokens/count-tokens.ts');
    countPromptTokens([{ role: 'user', content: 'warm up' }]);
    this.#inline = countPromptTokens;
    for (const language of WARM_UP_LANGUAGES) {
      await this.generate({
        messages: [{ role: 'user', content: 'warm up' }],
        language,
        seed: 1,
        temperature: 1,
        topP: 1,
        maxTokens: 16,
        n: 1,
        stop: [],
      });
    }
  }

  /** Lets running and queued tasks finish, then stops the threads. New tasks get `shutting_down`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#sendBatch();
    await this.#piscina.close();
  }

  stats(): EnginePoolStats {
    const piscina = this.#piscina;
    // piscina's utilization is that busy time over (time since start × maxThreads).
    const maxThreads = piscina.options.maxThreads;
    return { threads: piscina.threads.length, queued: piscina.queueSize + this.#batch.length, maxThreads, busyMs: piscina.utilization * piscina.duration * maxThreads };
  }

  #run(request: EngineWorkerRequest, signal?: AbortSignal): Promise<EngineResult | number> {
    if (this.#closed) return Promise.reject(new ApiError('shutting_down'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#tasks >= this.#maxTasks) return Promise.reject(new ApiError('overloaded', { headers: RETRY_SOON }));
    // The signal is not given to piscina: aborting a running task makes it terminate and respawn
    // the thread, which costs far more than letting a sub-millisecond task finish unobserved.
    const running = new Promise<EngineResult | number>((resolve, reject) => {
      this.#tasks++;
      this.#batch.push(new PendingTask(request, resolve, reject));
    });
    if (this.#batch.length >= MAX_BATCH) this.#sendBatch();
    else if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(this.#flush);
    }
    return signal === undefined ? running : settleOrAbort(running, signal);
  }

  #sendBatch(): void {
    this.#flushScheduled = false;
    if (this.#batch.length === 0) return;
    const batch = this.#batch;
    this.#batch = [];
    const requests = batch.map((task) => task.request);
    this.#piscina.run(requests).then(
      (outcomes) => this.#settle(batch, outcomes),
      (error: unknown) => this.#fail(batch, error),
    );
  }

  #settle(batch: readonly PendingTask[], outcomes: EngineBatchOutcome): void {
    this.#tasks -= batch.length;
    for (let index = 0; index < batch.length; index++) {
      const outcome = outcomes[index];
      const task = batch[index]!;
      if (outcome === null || outcome === undefined) task.reject(new ApiError('engine_error'));
      else task.resolve(outcome);
    }
  }

  #fail(batch: readonly PendingTask[], error: unknown): void {
    this.#tasks -= batch.length;
    for (const task of batch) task.reject(this.#toApiError(error));
  }

  #toApiError(error: unknown): ApiError {
    if (error instanceof Error && QUEUE_FULL_MESSAGES.has(error.message)) return new ApiError('overloaded', { headers: RETRY_SOON });
    if (this.#closed && error instanceof Error && error.name === 'AbortError') return new ApiError('shutting_down');
    return new ApiError('engine_error');
  }
}

function settleOrAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
