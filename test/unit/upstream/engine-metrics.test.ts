import { describe, expect, it } from 'vitest';
import { ENGINE_METRICS, readEngineLoad, readSlotsLoad } from '../../../src/upstream/engine-metrics.ts';
import { vllmMetricsText } from '../../helpers/mock-upstream-vllm.ts';

describe('readEngineLoad', () => {
  it("reads vLLM's queue, batch and KV cache from its page among other series", () => {
    const page = vllmMetricsText({ waiting: 7, running: 12, kvCacheUsage: 0.42 });
    expect(readEngineLoad(ENGINE_METRICS.vllm, page)).toEqual({ waiting: 7, running: 12, kvCacheUsage: 0.42 });
  });

  it('sums the series of one name (data-parallel ranks) and keeps the fullest KV cache', () => {
    const page = [
      'vllm:num_requests_waiting{engine="0",model_name="m"} 2.0',
      'vllm:num_requests_waiting{engine="1",model_name="m"} 3.0',
      'vllm:num_requests_running{engine="0",model_name="m"} 4',
      'vllm:num_requests_running{engine="1",model_name="m"} 5',
      'vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.3',
      'vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.8',
    ].join('\n');
    expect(readEngineLoad(ENGINE_METRICS.vllm, page)).toEqual({ waiting: 5, running: 9, kvCacheUsage: 0.8 });
  });

  it("takes an older vLLM's gpu_cache_usage_perc when the current name is absent, and the current one over it", () => {
    const older = 'vllm:num_requests_waiting{model_name="m"} 1\nvllm:gpu_cache_usage_perc{model_name="m"} 0.6\n';
    expect(readEngineLoad(ENGINE_METRICS.vllm, older)?.kvCacheUsage).toBe(0.6);
    expect(readEngineLoad(ENGINE_METRICS.vllm, `vllm:kv_cache_usage_perc 0.2\n${older}`)?.kvCacheUsage).toBe(0.2);
  });

  it("reads SGLang's and llama.cpp's names", () => {
    const sglang = 'sglang:num_queue_reqs{model_name="m"} 4\nsglang:num_running_reqs{model_name="m"} 16\nsglang:token_usage{model_name="m"} 0.5\n';
    expect(readEngineLoad(ENGINE_METRICS.sglang, sglang)).toEqual({ waiting: 4, running: 16, kvCacheUsage: 0.5 });
    const llamacpp = '# TYPE llamacpp:requests_deferred gauge\nllamacpp:requests_deferred 2\nllamacpp:requests_processing 1\nllamacpp:kv_cache_usage_ratio 0.25\n';
    expect(readEngineLoad(ENGINE_METRICS.llamacpp, llamacpp)).toEqual({ waiting: 2, running: 1, kvCacheUsage: 0.25 });
  });

  it('is null for a page without the queue (another engine, or not a metrics page)', () => {
    expect(readEngineLoad(ENGINE_METRICS.vllm, 'sglang:num_queue_reqs 4\n')).toBeNull();
    expect(readEngineLoad(ENGINE_METRICS.vllm, '<html>Not Found</html>')).toBeNull();
    expect(readEngineLoad(ENGINE_METRICS.vllm, '')).toBeNull();
  });

  it('skips malformed lines and label values holding spaces, braces and quotes', () => {
    const page = [
      'vllm:num_requests_waiting{model_name="a } b \\" c"} 3 1700000000000',
      'vllm:num_requests_waiting{model_name="unclosed 9',
      'vllm:num_requests_waiting',
      'vllm:num_requests_waiting{} NaN',
      'vllm:num_requests_waiting{}',
      'vllm:kv_cache_usage_perc 1.7',
    ].join('\n');
    // A share above 1 is read as a full cache.
    expect(readEngineLoad(ENGINE_METRICS.vllm, page)).toEqual({ waiting: 3, running: 0, kvCacheUsage: 1 });
  });
});

describe('readSlotsLoad', () => {
  it("reads llama.cpp's busy and idle slots, as `is_processing` or, on older servers, `state`", () => {
    const current = JSON.stringify([{ id: 0, is_processing: true, n_ctx: 4096 }, { id: 1, is_processing: false }, { id: 2, is_processing: true }]);
    expect(readSlotsLoad(current)).toEqual({ waiting: 0, running: 2, kvCacheUsage: 0, idleSlots: 1 });
    const older = JSON.stringify([{ id: 0, state: 0 }, { id: 1, state: 1 }]);
    expect(readSlotsLoad(older)).toEqual({ waiting: 0, running: 1, kvCacheUsage: 0, idleSlots: 1 });
  });

  it('has no load for a page that is not a list of slots', () => {
    for (const page of ['', 'not json', '{}', '[]', '[1, 2]', JSON.stringify([{ id: 0 }]), JSON.stringify({ error: { code: 501 } })]) {
      expect(readSlotsLoad(page), page).toBeNull();
    }
  });
});
