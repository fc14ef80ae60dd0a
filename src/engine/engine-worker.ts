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

export default function handleEngineBatch(requests: readonly EngineWorkerRequest[]): EngineBatchOutcome {
  if (!Array.isArray(requests)) throw new TypeError('An engine batch is an array of requests.');
  const outcomes: EngineBatchOutcome = [];
  for (const request of requests) {
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
