// The local engine's worker pool: generation and large prompt token counts run on piscina threads.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { ApiError } from '../errors/api-error.ts';
import type { PromptMessage } from '../tokens/count-tokens.ts';
import { countPromptTokensAdaptive, type InlineCounter, OFF_THREAD_PROMPT_CHARS } from '../tokens/token-pool.ts';
import type { EngineLanguage, EngineResult, EngineTask } from './engine-types.ts';
import type { EngineWorkerRequest } from './engine-worker.ts';

export interface EnginePoolOptions {
  /** Default: min(available parallelism, 4). */
  readonly maxThreads?: number;
  /** Tasks waiting for a thread; beyond it requests fail with `overloaded`. Default 1024. */
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
  readonly queued: number;
  /** The most threads the pool runs. */
  readonly maxThreads: number;
  /** Thread time spent running tasks since the pool started, in ms: rises only (a rate-ready counter). */
  readonly busyMs: number;
}

const DEFAULT_MAX_QUEUE = 1024;
const RETRY_SOON = { 'retry-after': '1' };
const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
// piscina signals a full queue only through these messages.
const QUEUE_FULL_MESSAGES = new Set(['Task queue is at limit', 'No task queue available and all Workers are busy']);
const WORKER_URL = new URL('./engine-worker.ts', import.meta.url).href;
const WARM_UP_LANGUAGES: readonly EngineLanguage[] = ['en', 'hr'];

export class EnginePool {
  readonly #piscina: Piscina<EngineWorkerRequest, EngineResult | number>;
  readonly #offThreadPromptChars: number;
  readonly #localModels: boolean;
  /** This thread's tokenizer, loaded by warmUp() only when local models are served. */
  #inline: InlineCounter | null = null;
  // Lets generate() hand the worker a count the caller already paid for (same messages array).
  readonly #countedPrompts = new WeakMap<readonly PromptMessage[], number>();
  #closed = false;

  constructor(options: EnginePoolOptions = {}) {
    const maxThreads = Math.max(1, Math.floor(options.maxThreads ?? Math.min(availableParallelism(), 4)));
    this.#piscina = new Piscina({
      filename: WORKER_URL,
      minThreads: options.localModels === false ? 0 : 1,
      maxThreads,
      maxQueue: options.maxQueue ?? DEFAULT_MAX_QUEUE,
      idleTimeout: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    });
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
    await this.#piscina.close();
  }

  stats(): EnginePoolStats {
    const piscina = this.#piscina;
    // piscina's utilization is that busy time over (time since start × maxThreads).
    const maxThreads = piscina.options.maxThreads;
    return { threads: piscina.threads.length, queued: piscina.queueSize, maxThreads, busyMs: piscina.utilization * piscina.duration * maxThreads };
  }

  #run(request: EngineWorkerRequest, signal?: AbortSignal): Promise<EngineResult | number> {
    if (this.#closed) return Promise.reject(new ApiError('shutting_down'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    // The signal is not given to piscina: aborting a running task makes it terminate and respawn
    // the thread, which costs far more than letting a sub-millisecond task finish unobserved.
    const running = this.#piscina.run(request).catch((error: unknown) => {
      throw this.#toApiError(error);
    });
    return signal === undefined ? running : settleOrAbort(running, signal);
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
