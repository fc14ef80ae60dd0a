// What an inference engine says of its load, read from its Prometheus text: the requests waiting in
// its queue, those running, and the share of its KV cache in use. Only the few lines named here are
// read (a full parser would build every series of a page that runs to hundreds of lines, to keep three).
// llama.cpp publishes /metrics only when started with --metrics; its /slots (on by default) says
// which of its slots are busy, which serves instead.
import type { PolledEngine } from '../config/config-types.ts';

export interface EngineLoad {
  readonly waiting: number;
  readonly running: number;
  /** 0–1; 0 when the engine does not publish it. */
  readonly kvCacheUsage: number;
  /** llama.cpp's idle slots, when read from /slots (its queue is not published there); absent otherwise. */
  readonly idleSlots?: number;
}

/** llama.cpp's slots page, read when its metrics page is not published. */
export const LLAMACPP_SLOTS_PATH = '/slots';

interface EngineMetricNames {
  readonly path: string;
  readonly waiting: string;
  readonly running: string;
  /** The current name first, then older spellings. */
  readonly kvCacheUsage: readonly string[];
}

/** Where each engine publishes its load (at the server's root, not under /v1), and under what names. */
export const ENGINE_METRICS: Readonly<Record<PolledEngine, EngineMetricNames>> = {
  vllm: { path: '/metrics', waiting: 'vllm:num_requests_waiting', running: 'vllm:num_requests_running', kvCacheUsage: ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc'] },
  sglang: { path: '/metrics', waiting: 'sglang:num_queue_reqs', running: 'sglang:num_running_reqs', kvCacheUsage: ['sglang:token_usage'] },
  // llama.cpp publishes /metrics when started with --metrics.
  llamacpp: { path: '/metrics', waiting: 'llamacpp:requests_deferred', running: 'llamacpp:requests_processing', kvCacheUsage: ['llamacpp:kv_cache_usage_ratio'] },
};

/**
 * The engine's load from its metrics page, or null when the page lacks its queue (not this engine's
 * page). Series of one name are summed (an engine with several model names or data-parallel ranks),
 * except the KV cache's share, of which the fullest counts.
 */
export function readEngineLoad(names: EngineMetricNames, text: string): EngineLoad | null {
  let waiting: number | null = null;
  let running = 0;
  let kvCacheUsage = 0;
  let kvRank = Infinity;
  for (const line of text.split('\n')) {
    if (line.length === 0 || line.charCodeAt(0) === 35 /* # */) continue;
    const sample = parseSample(line);
    if (sample === null) continue;
    const { name, value } = sample;
    if (name === names.waiting) waiting = (waiting ?? 0) + value;
    else if (name === names.running) running += value;
    else {
      const rank = names.kvCacheUsage.indexOf(name);
      if (rank === -1 || rank > kvRank) continue;
      kvCacheUsage = rank < kvRank ? value : Math.max(kvCacheUsage, value);
      kvRank = rank;
    }
  }
  if (waiting === null) return null;
  return { waiting, running, kvCacheUsage: Math.min(1, Math.max(0, kvCacheUsage)) };
}

/**
 * llama.cpp's load from its /slots page (a JSON array, one object per slot: `is_processing`, or
 * `state` 0 for idle on older servers), or null when the page is not that.
 */
export function readSlotsLoad(text: string): EngineLoad | null {
  let slots: unknown;
  try {
    slots = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(slots) || slots.length === 0) return null;
  let processing = 0;
  for (const slot of slots as unknown[]) {
    if (typeof slot !== 'object' || slot === null) return null;
    const { is_processing: busy, state } = slot as { is_processing?: unknown; state?: unknown };
    if (typeof busy === 'boolean') processing += busy ? 1 : 0;
    else if (typeof state === 'number') processing += state === 0 ? 0 : 1;
    else return null;
  }
  return { waiting: 0, running: processing, kvCacheUsage: 0, idleSlots: slots.length - processing };
}

/** `name{labels} value [timestamp]`; null for a line that is not a finite sample. */
function parseSample(line: string): { name: string; value: number } | null {
  const brace = line.indexOf('{');
  const space = line.indexOf(' ');
  let name: string;
  let rest: string;
  if (brace !== -1 && (space === -1 || brace < space)) {
    // A label value may hold spaces and braces, but not an unescaped quote before its closing one.
    const close = closingBrace(line, brace);
    if (close === -1) return null;
    name = line.slice(0, brace);
    rest = line.slice(close + 1);
  } else {
    if (space === -1) return null;
    name = line.slice(0, space);
    rest = line.slice(space);
  }
  const token = rest.trim().split(/\s+/, 1)[0];
  if (token === undefined || token.length === 0) return null;
  const value = Number(token);
  return Number.isFinite(value) ? { name, value } : null;
}

function closingBrace(line: string, from: number): number {
  let quoted = false;
  for (let i = from + 1; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 92 /* \ */ && quoted) i++;
    else if (c === 34 /* " */) quoted = !quoted;
    else if (c === 125 /* } */ && !quoted) return i;
  }
  return -1;
}
