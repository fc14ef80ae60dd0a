// The bodies and SSE frames vLLM's OpenAI-compatible server sends, as plain functions for the mock upstream.
import { randomUUID } from 'node:crypto';

export type UpstreamErrorStatus = 400 | 401 | 403 | 404 | 429 | 500 | 502 | 503;

/** vLLM's own error classes where it has one, else the HTTP phrase its HTTPException handler uses. */
const ERROR_TYPES: Record<UpstreamErrorStatus, string> = {
  400: 'BadRequestError',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFoundError',
  429: 'Too Many Requests',
  500: 'InternalServerError',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

export interface Usage {
  readonly prompt_tokens: number;
  readonly total_tokens: number;
  readonly completion_tokens: number;
}

export function usageOf(promptTokens: number, completionTokens: number): Usage {
  return { prompt_tokens: promptTokens, total_tokens: promptTokens + completionTokens, completion_tokens: completionTokens };
}

export function completionId(): string {
  return `chatcmpl-${randomUUID().replaceAll('-', '')}`;
}

export function requestId(): string {
  return randomUUID().replaceAll('-', '');
}

/** A non-streaming chat.completion, with the null fields vLLM serialises. */
export function completionBody(model: string, text: string, usage: Usage): object {
  return {
    id: completionId(),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text,
          refusal: null,
          annotations: null,
          audio: null,
          function_call: null,
          tool_calls: [],
          reasoning_content: null,
        },
        logprobs: null,
        finish_reason: 'stop',
        stop_reason: null,
      },
    ],
    service_tier: null,
    system_fingerprint: null,
    usage: { ...usage, prompt_tokens_details: null },
    prompt_logprobs: null,
    kv_transfer_params: null,
  };
}

export function errorBody(status: UpstreamErrorStatus, message: string): object {
  return { error: { message, type: ERROR_TYPES[status], param: null, code: status } };
}

/** What vLLM's --api-key middleware answers: not the OpenAI error shape. */
export const UNAUTHORIZED_BODY = { error: 'Unauthorized' };

export function modelsBody(models: readonly string[], maxModelLen: number): object {
  const created = Math.floor(Date.now() / 1000);
  return {
    object: 'list',
    data: models.map((id) => ({ id, object: 'model', created, owned_by: 'vllm', root: id, parent: null, max_model_len: maxModelLen })),
  };
}

export function sseFrame(data: object | string): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

export const DONE_FRAME = sseFrame('[DONE]');

/**
 * Builds the chunks of one stream. Current vLLM serialises chunks with exclude_unset, so `usage` is absent
 * from choice chunks; `nullUsage` adds `"usage": null` as OpenAI (and vLLM before ~0.6) does under include_usage.
 */
export function chunkFactory(model: string, includeUsage: boolean, nullUsage: boolean) {
  const id = completionId();
  const created = Math.floor(Date.now() / 1000);
  const choiceChunk = (choice: object) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [choice],
    ...(includeUsage && nullUsage ? { usage: null } : {}),
  });
  return {
    role: () => choiceChunk({ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }),
    content: (text: string) => choiceChunk({ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }),
    finish: () => choiceChunk({ index: 0, delta: { content: '' }, logprobs: null, finish_reason: 'stop', stop_reason: null }),
    usage: (usage: Usage) => ({ id, object: 'chat.completion.chunk', created, model, choices: [], usage }),
  };
}

/** vLLM's in-stream error event (create_streaming_error_response). */
export function streamErrorFrame(message: string): string {
  return sseFrame({ error: { message, type: 'InternalServerError', param: null, code: 500 } });
}

export interface VllmLoad {
  readonly waiting: number;
  readonly running: number;
  /** 0–1, as vLLM reports it despite the name's "perc". */
  readonly kvCacheUsage: number;
}

/** vLLM's /metrics page (V1 engine, one model): the load gauges among counters and a histogram, as it prints them. */
export function vllmMetricsText(load: VllmLoad, model = 'mock-model'): string {
  const labels = `engine="0",model_name="${model}"`;
  return [
    '# HELP python_gc_objects_collected_total Objects collected during gc',
    '# TYPE python_gc_objects_collected_total counter',
    'python_gc_objects_collected_total{generation="0"} 12345.0',
    '# HELP vllm:num_requests_running Number of requests in model execution batches.',
    '# TYPE vllm:num_requests_running gauge',
    `vllm:num_requests_running{${labels}} ${load.running.toFixed(1)}`,
    '# HELP vllm:num_requests_waiting Number of requests waiting to be processed.',
    '# TYPE vllm:num_requests_waiting gauge',
    `vllm:num_requests_waiting{${labels}} ${load.waiting.toFixed(1)}`,
    '# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.',
    '# TYPE vllm:kv_cache_usage_perc gauge',
    `vllm:kv_cache_usage_perc{${labels}} ${load.kvCacheUsage}`,
    '# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.',
    '# TYPE vllm:prefix_cache_queries_total counter',
    `vllm:prefix_cache_queries_total{${labels}} 4096.0`,
    '# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.',
    '# TYPE vllm:time_to_first_token_seconds histogram',
    `vllm:time_to_first_token_seconds_bucket{${labels},le="0.001"} 0.0`,
    `vllm:time_to_first_token_seconds_bucket{${labels},le="+Inf"} 17.0`,
    `vllm:time_to_first_token_seconds_count{${labels}} 17.0`,
    `vllm:time_to_first_token_seconds_sum{${labels}} 1.25`,
    '',
  ].join('\n');
}
