// The local engine's worker pool: generation and large prompt token counts run on piscina threads.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { DEFAULT_ENGINE_SCHEMA_MS_PER_MINUTE, DEFAULT_ENGINE_TASK_DEADLINE_MS } from '../config/default-config.ts';
import { ApiError } from '../errors/api-error.ts';
import type { PromptMessage } from '../tokens/count-tokens.ts';
import { countPromptTokensAdaptive, type InlineCounter, OFF_THREAD_PROMPT_CHARS } from '../tokens/token-pool.ts';
import type { EngineLanguage, EngineResult, EngineTask } from './engine-types.ts';
import { SchemaBudget } from './schema-budget.ts';
import { type EngineBatch, type EngineBatchOutcome, type EngineWorkerRequest, PROGRESS_ABANDONED, PROGRESS_INDEX, PROGRESS_STARTED } from './engine-worker.ts';

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
  /**
   * A task that runs longer than this on its thread (time waiting for a thread not counted) is
   * stopped, its thread replaced. Default 5,000 ms.
   */
  readonly taskDeadlineMs?: number;
  /** Engine time per account per minute for compiling and checking schemas not in the cache. Default 3,000 ms. */
  readonly schemaMsPerMinute?: number;
}

export interface EnginePoolStats {
  readonly threads: number;
  /** Batches waiting for a thread, plus the tasks of this turn not yet sent (0 when idle). */
  readonly queued: number;
  /** The most threads the pool runs. */
  readonly maxThreads: number;
  /** Thread time spent running tasks since the pool started, in ms: rises only (a rate-ready counter). */
  readonly busyMs: number;
  /** Tasks accepted and not yet over: queued, running, or sent again after their thread was replaced. */
  readonly tasks: number;
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
// Tasks are synchronous on their thread, so time since a task started is CPU time, not a wait
// (the latency profile's pacing happens on the main thread, after the task).
// A task whose client left is let run this long before its thread is replaced: nearly all finish in
// well under a millisecond, and a new thread (with its tokenizer) costs far more than that.
const ABANDONED_GRACE_MS = 50;

/** A task: waiting in the current turn's batch, then in the batch sent. */
class PendingTask {
  readonly request: EngineWorkerRequest;
  readonly resolve: (value: EngineResult | number) => void;
  readonly reject: (error: unknown) => void;
  /** Its client left: it is skipped if not started, and stopped after a grace if running. */
  abandoned = false;
  batch: SentBatch | null = null;

  constructor(request: EngineWorkerRequest, resolve: (value: EngineResult | number) => void, reject: (error: unknown) => void) {
    this.request = request;
    this.resolve = resolve;
    this.reject = reject;
  }
}

/** Tasks sent to a thread in one message, watched against the deadline. */
class SentBatch {
  readonly tasks: readonly PendingTask[];
  readonly progress: Int32Array;
  readonly sentAt = Date.now();
  readonly controller = new AbortController();
  timer: NodeJS.Timeout | null = null;
  over = false;
  /** The index of the task stopped; -1 while none is. */
  stoppedAt = -1;

  constructor(tasks: readonly PendingTask[]) {
    this.tasks = tasks;
    this.progress = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT * (PROGRESS_ABANDONED + tasks.length)));
  }
}

export class EnginePool {
  readonly #piscina: Piscina<EngineBatch, EngineBatchOutcome>;
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
  readonly #taskDeadlineMs: number;
  readonly #schemaBudget: SchemaBudget;
  readonly #flush = (): void => this.#sendBatch();
  readonly #watch = (sent: SentBatch): void => this.#watchBatch(sent);

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
    this.#taskDeadlineMs = options.taskDeadlineMs ?? DEFAULT_ENGINE_TASK_DEADLINE_MS;
    this.#schemaBudget = new SchemaBudget(options.schemaMsPerMinute ?? DEFAULT_ENGINE_SCHEMA_MS_PER_MINUTE);
  }

  /**
   * Rejects with ApiError `overloaded` (queue full, or a plain task over the deadline),
   * `invalid_value` (a task with client schemas over the deadline), `engine_error` (the worker
   * failed), `shutting_down` (pool closed), or with `signal.reason` when aborted: the task is then
   * skipped, or stopped if it runs on past a short grace. With `account`, a task with schemas is
   * refused with `rate_limit_exceeded` while that account's schema budget is spent, and charged.
   */
  async generate(task: EngineTask, signal?: AbortSignal, account?: string): Promise<EngineResult> {
    const promptTokens = this.#countedPrompts.get(task.messages);
    const budgeted = task.structure !== undefined && account !== undefined ? account : null;
    if (budgeted === null) return (await this.#run({ kind: 'generate', task, promptTokens }, signal)) as EngineResult;
    this.#schemaBudget.admit(budgeted);
    try {
      const result = (await this.#run({ kind: 'generate', task, promptTokens }, signal)) as EngineResult;
      this.#schemaBudget.charge(budgeted, result.schemaMs ?? 0);
      return result;
    } catch (error) {
      // Stopped at the deadline: the time went on its schemas.
      if (error instanceof ApiError && error.code === 'invalid_value') this.#schemaBudget.charge(budgeted, this.#taskDeadlineMs);
      throw error;
    }
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
    return { threads: piscina.threads.length, queued: piscina.queueSize + this.#batch.length, maxThreads, busyMs: piscina.utilization * piscina.duration * maxThreads, tasks: this.#tasks };
  }

  #run(request: EngineWorkerRequest, signal?: AbortSignal): Promise<EngineResult | number> {
    if (this.#closed) return Promise.reject(new ApiError('shutting_down'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#tasks >= this.#maxTasks) return Promise.reject(new ApiError('overloaded', { headers: RETRY_SOON }));
    const { promise, resolve, reject } = Promise.withResolvers<EngineResult | number>();
    const task = new PendingTask(request, resolve, reject);
    this.#tasks++;
    this.#queue(task);
    if (signal === undefined) return promise;
    const onAbort = (): void => {
      reject(signal.reason);
      this.#abandon(task);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    return promise.finally(() => signal.removeEventListener('abort', onAbort));
  }

  #queue(task: PendingTask): void {
    this.#batch.push(task);
    if (this.#batch.length >= MAX_BATCH) this.#sendBatch();
    else if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(this.#flush);
    }
  }

  #abandon(task: PendingTask): void {
    task.abandoned = true;
    const sent = task.batch;
    if (sent === null) return; // left out when its batch is sent
    Atomics.store(sent.progress, PROGRESS_ABANDONED + sent.tasks.indexOf(task), 1);
    this.#watchBatch(sent);
  }

  #sendBatch(): void {
    this.#flushScheduled = false;
    if (this.#batch.length === 0) return;
    const tasks: PendingTask[] = [];
    for (const task of this.#batch) {
      if (task.abandoned) this.#tasks--;
      else tasks.push(task);
    }
    this.#batch = [];
    if (tasks.length === 0) return;
    const sent = new SentBatch(tasks);
    for (const task of tasks) task.batch = sent;
    const batch: EngineBatch = { requests: tasks.map((task) => task.request), progress: sent.progress, sentAt: sent.sentAt };
    this.#piscina.run(batch, { signal: sent.controller.signal }).then(
      (outcomes) => this.#settle(sent, outcomes),
      (error: unknown) => this.#fail(sent, error),
    );
    sent.timer = setTimeout(this.#watch, this.#taskDeadlineMs, sent);
  }

  /** Stops the batch's thread when its running task is past the deadline (or the grace, if abandoned); else looks again then. */
  #watchBatch(sent: SentBatch): void {
    if (sent.timer !== null) clearTimeout(sent.timer);
    sent.timer = null;
    if (sent.over || sent.stoppedAt !== -1) return;
    const { progress } = sent;
    const index = Atomics.load(progress, PROGRESS_INDEX);
    const started = Atomics.load(progress, PROGRESS_STARTED);
    // Waiting for a thread is not running; and a task that just began may not have written its start yet.
    if (started === 0 || Atomics.load(progress, PROGRESS_INDEX) !== index) {
      sent.timer = setTimeout(this.#watch, started === 0 ? this.#taskDeadlineMs : 1, sent);
      return;
    }
    const limitMs = sent.tasks[index]!.abandoned ? ABANDONED_GRACE_MS : this.#taskDeadlineMs;
    const ranMs = Date.now() - (sent.sentAt + started - 1);
    if (ranMs < limitMs) {
      sent.timer = setTimeout(this.#watch, limitMs - ranMs, sent);
      return;
    }
    sent.stoppedAt = index;
    sent.controller.abort();
  }

  #settle(sent: SentBatch, outcomes: EngineBatchOutcome): void {
    this.#over(sent);
    const batch = sent.tasks;
    this.#tasks -= batch.length;
    for (let index = 0; index < batch.length; index++) {
      const outcome = outcomes[index];
      const task = batch[index]!;
      if (outcome === null || outcome === undefined) task.reject(new ApiError('engine_error'));
      else task.resolve(outcome);
    }
  }

  #fail(sent: SentBatch, error: unknown): void {
    this.#over(sent);
    if (sent.stoppedAt === -1) {
      this.#tasks -= sent.tasks.length;
      for (const task of sent.tasks) task.reject(this.#toApiError(error));
      return;
    }
    // The thread was replaced for one task: that one is answered, the others go out again.
    sent.tasks.forEach((task, index) => {
      task.batch = null;
      if (index === sent.stoppedAt || task.abandoned || this.#closed) {
        this.#tasks--;
        task.reject(index === sent.stoppedAt ? this.#overDeadline(task.request) : new ApiError('shutting_down'));
      } else this.#queue(task);
    });
  }

  #over(sent: SentBatch): void {
    sent.over = true;
    if (sent.timer !== null) clearTimeout(sent.timer);
    sent.timer = null;
  }

  /** A task with client schemas spent the time on them: the client's 400. Otherwise the engine is too slow: retry. */
  #overDeadline(request: EngineWorkerRequest): ApiError {
    if (request.kind === 'generate' && request.task.structure !== undefined) {
      return new ApiError('invalid_value', {
        message: `The tool and response format schemas took the local engine over its ${this.#taskDeadlineMs} ms per request; send fewer or smaller schemas.`,
      });
    }
    return new ApiError('overloaded', { headers: RETRY_SOON });
  }

  #toApiError(error: unknown): ApiError {
    if (error instanceof Error && QUEUE_FULL_MESSAGES.has(error.message)) return new ApiError('overloaded', { headers: RETRY_SOON });
    if (this.#closed && error instanceof Error && error.name === 'AbortError') return new ApiError('shutting_down');
    return new ApiError('engine_error');
  }
}
