// Piscina worker entry: runs the local engine and large prompt token counts off the main thread.
import { countPromptTokens, type PromptMessage } from '../tokens/count-tokens.ts';
import type { EngineResult, EngineTask } from './engine-types.ts';
import { generate } from './local-engine.ts';

export interface GenerateRequest {
  readonly kind: 'generate';
  readonly task: EngineTask;
  /** Set when the main thread already counted this prompt, so the worker need not. */
  readonly promptTokens?: number;
}

export interface CountRequest {
  readonly kind: 'count';
  readonly messages: readonly PromptMessage[];
}

export type EngineWorkerRequest = GenerateRequest | CountRequest;

export default function handleEngineRequest(request: EngineWorkerRequest): EngineResult | number {
  switch (request?.kind) {
    case 'generate':
      return generate(request.task, request.promptTokens);
    case 'count':
      return countPromptTokens(request.messages);
    default:
      // Rejects this task only; piscina keeps the worker.
      throw new TypeError('Unknown engine worker request.');
  }
}
