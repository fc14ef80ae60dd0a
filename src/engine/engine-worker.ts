// Piscina worker entry: runs the local engine and large prompt token counts off the main thread.
// The pool sends the tasks of one event-loop turn as one batch: one message each way instead of one per task.
import { countPromptTokens, type PromptMessage } from '../tokens/count-tokens.ts';
import type { EngineResult, EngineTask } from './engine-types.ts';
import { generate } from './local-engine.ts';

export interface GenerateRequest {
  readonly kind: 'generate';
  readonly task: EngineTask;
  /** Set when the main thread already counted this prompt, so the worker need not. */
  readonly promptTokens?: number | undefined;
}

export interface CountRequest {
  readonly kind: 'count';
  readonly messages: readonly PromptMessage[];
}

export type EngineWorkerRequest = GenerateRequest | CountRequest;

/** Per request, in order: its result, or null when it failed (that request alone fails). */
export type EngineBatchOutcome = (EngineResult | number | null)[];

export interface EngineBatch {
  readonly requests: readonly EngineWorkerRequest[];
  /**
   * Shared with the pool, which stops a task over its deadline: PROGRESS_INDEX holds the index of
   * the request running, PROGRESS_STARTED when it started (ms after `sentAt`, plus one: 0 = not yet),
   * and PROGRESS_ABANDONED + i is 1 when request i's client left (it is then skipped).
   */
  readonly progress: Int32Array;
  /** Date.now() when the pool sent the batch. */
  readonly sentAt: number;
}

export const PROGRESS_INDEX = 0;
export const PROGRESS_STARTED = 1;
export const PROGRESS_ABANDONED = 2;

export default function handleEngineBatch(batch: EngineBatch): EngineBatchOutcome {
  const { requests, progress, sentAt } = batch ?? {};
  if (!Array.isArray(requests) || !(progress instanceof Int32Array)) throw new TypeError('An engine batch is an array of requests and a progress array.');
  const outcomes: EngineBatchOutcome = [];
  for (let index = 0; index < requests.length; index++) {
    const request = requests[index]!;
    Atomics.store(progress, PROGRESS_INDEX, index);
    Atomics.store(progress, PROGRESS_STARTED, Date.now() - sentAt + 1);
    if (Atomics.load(progress, PROGRESS_ABANDONED + index) === 1) {
      outcomes.push(null);
      continue;
    }
    try {
      outcomes.push(handleEngineRequest(request));
    } catch {
      outcomes.push(null);
    }
  }
  return outcomes;
}

function handleEngineRequest(request: EngineWorkerRequest): EngineResult | number {
  switch (request?.kind) {
    case 'generate':
      return generate(request.task, request.promptTokens);
    case 'count':
      return countPromptTokens(request.messages);
    default:
      throw new TypeError('Unknown engine worker request.');
  }
}
