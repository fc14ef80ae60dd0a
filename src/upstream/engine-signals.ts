// The load of the inference engines behind the upstreams, polled off the request path: each engine's
// metrics page every `pollMs`, one poll at a time per engine, each bounded by `timeoutMs` and a size
// cap, on its own connection (not one of the pool's that requests wait for). A sample older than
// three missed polls, or none yet, counts as saturated. Between polls, this process's own count of
// requests in flight on an engine fills the gap: those in flight beyond the count when the sample
// was read count as waiting there, and each of them that ended since frees a place (its batch slot
// goes to a waiting request or a new one), so that an engine found saturated is not held full until
// the next poll while its requests finish. A llama.cpp server without its metrics page (no --metrics) is
// read from its /slots instead, from the first poll that finds the page missing: it is saturated
// once no slot is idle.
// An upstream whose engine is `auto` has it recognised by its first answered poll: the metric names
// of its page, else llama.cpp's slots; with none of them, it is not polled again and has no signals.
import { Agent, request } from 'undici';
import type { EngineSaturation, EngineSignalsConfig, ModelConfig, PolledEngine, UpstreamConfig } from '../config/config-types.ts';
import { ENGINE_METRICS, type EngineLoad, LLAMACPP_SLOTS_PATH, readEngineLoad, readSlotsLoad } from './engine-metrics.ts';

/** Where every polled engine publishes its metrics. */
const METRICS_PATH = '/metrics';
const RECOGNISED: readonly PolledEngine[] = ['vllm', 'sglang', 'llamacpp'];

/** A metrics page larger than this is not read (vLLM's is ~50 KB with histograms). */
const MAX_METRICS_BYTES = 4 * 1024 * 1024;
const MISSED_POLLS_UNTIL_STALE = 3;

export interface EngineSignalsLog {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/** One polled engine as the metrics report it. */
export interface EngineSignalStats {
  readonly origin: string;
  readonly engine: string;
  /** The last sample's numbers; null before the first. */
  readonly load: EngineLoad | null;
  /** Older than three missed polls, or none yet: counted as saturated. */
  readonly stale: boolean;
}

interface EngineSource {
  readonly origin: string;
  readonly url: string;
  /** Null while an `auto` engine is still to be recognised, or when it was not. */
  engine: PolledEngine | null;
  /** An `auto` engine that showed none of the engines' pages: no longer polled. */
  unrecognised: boolean;
  load: EngineLoad | null;
  sampledAt: number;
  /** This process's requests in flight on it, now and when `load` was read. */
  inFlight: number;
  inFlightAtSample: number;
  polling: boolean;
  failing: boolean;
  /** A llama.cpp server whose metrics page is missing: its /slots is read instead. */
  fromSlots: boolean;
}

/** The metrics page answered, without the engine's load: not published (llama.cpp without --metrics) rather than failing. */
class NotPublished extends Error {}

export class EngineSignals {
  readonly #sources = new Map<string, EngineSource>();
  /** Each upstream's engine: several upstreams (models) may share one. */
  readonly #byUpstream = new Map<UpstreamConfig, EngineSource>();
  readonly #settings: EngineSignalsConfig;
  readonly #now: () => number;
  readonly #log: EngineSignalsLog | null;
  readonly #agent: Agent;
  #timer: NodeJS.Timeout | null = null;
  #failedPolls = 0;
  /** Told after each poll of an engine, read or failed: its upstreams' saturation may have changed. */
  onPolled: (() => void) | null = null;

  constructor(models: readonly ModelConfig[], settings: EngineSignalsConfig, log: EngineSignalsLog | null = null, now: () => number = performance.now.bind(performance)) {
    this.#settings = settings;
    this.#now = now;
    this.#log = log;
    this.#agent = new Agent({ connections: 1, maxResponseSize: MAX_METRICS_BYTES, headersTimeout: settings.timeoutMs, bodyTimeout: settings.timeoutMs });
    for (const model of models) {
      if (model.target.kind !== 'upstreams') continue;
      for (const upstream of model.target.upstreams) {
        const { engine } = upstream;
        if (engine === undefined || engine === 'openai') continue;
        const key = `${engine} ${upstream.origin}`;
        let source = this.#sources.get(key);
        if (source === undefined) {
          const polled = engine === 'auto' ? null : engine;
          source = {
            origin: upstream.origin, url: upstream.origin + (polled === null ? METRICS_PATH : ENGINE_METRICS[polled].path), engine: polled, unrecognised: false, load: null, sampledAt: -Infinity,
            inFlight: 0, inFlightAtSample: 0, polling: false, failing: false, fromSlots: false,
          };
          this.#sources.set(key, source);
        }
        this.#byUpstream.set(upstream, source);
      }
    }
  }

  /** Engines polled (for tests and the start log). */
  get polled(): number {
    return this.#sources.size;
  }

  /** Polls that failed, timed out or read no load, since start. */
  get failedPolls(): number {
    return this.#failedPolls;
  }

  stats(): EngineSignalStats[] {
    const now = this.#now();
    const stats: EngineSignalStats[] = [];
    for (const source of this.#sources.values()) {
      if (source.engine !== null) stats.push({ origin: source.origin, engine: source.engine, load: source.load, stale: this.#stale(source, now) });
    }
    return stats;
  }

  /** Polls now, then every `pollMs`, until close(). */
  start(): void {
    if (this.#sources.size === 0 || this.#timer !== null) return;
    // A poll never rejects: its failures are recorded on its engine.
    void this.pollOnce();
    this.#timer = setInterval(() => void this.pollOnce(), this.#settings.pollMs);
    this.#timer.unref();
  }

  /** One poll of every engine not still answering its last one; resolves when all have ended. */
  pollOnce(): Promise<void> {
    const polls: Promise<void>[] = [];
    for (const source of this.#sources.values()) if (!source.polling && !source.unrecognised) polls.push(this.#poll(source));
    return Promise.all(polls).then(() => undefined);
  }

  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#agent.close();
  }

  /**
   * How close the upstream's engine is to saturation against its thresholds: the worse of its queue
   * (with this process's requests in flight beyond those at the sample) and its KV cache's share; 1
   * and above is saturated.
   * Infinity without a fresh sample; null for an upstream with no polled engine (an `auto` one not
   * recognised, or not yet).
   */
  saturation(upstream: UpstreamConfig): number | null {
    const source = this.#source(upstream);
    if (source === undefined || source.engine === null) return null;
    const { load } = source;
    if (load === null || this.#stale(source, this.#now())) return Infinity;
    const limits = upstream.saturation as EngineSaturation;
    // Started since the sample less ended since: negative when more ended than started.
    const since = source.inFlight - source.inFlightAtSample;
    if (load.idleSlots !== undefined) {
      // Slots busy out of all, below 1 while one is idle; then the requests beyond the slots against queueDepth.
      const free = Math.min(load.idleSlots + load.running, load.idleSlots - since);
      return free > 0 ? 1 - free / (load.idleSlots + load.running) : 1 - free / limits.queueDepth;
    }
    return Math.max(Math.max(0, load.waiting + since) / limits.queueDepth, load.kvCacheUsage / limits.kvCacheUsage);
  }

  /** An attempt on the upstream starts. */
  began(upstream: UpstreamConfig): void {
    const source = this.#source(upstream);
    if (source !== undefined) source.inFlight += 1;
  }

  /** An attempt on the upstream ended. */
  ended(upstream: UpstreamConfig): void {
    const source = this.#source(upstream);
    if (source === undefined) return;
    source.inFlight -= 1;
  }

  /** The last load read from the upstream's engine (fresh or not), or null. */
  load(upstream: UpstreamConfig): EngineLoad | null {
    return this.#source(upstream)?.load ?? null;
  }

  #stale(source: EngineSource, now: number): boolean {
    return source.load === null || now - source.sampledAt > MISSED_POLLS_UNTIL_STALE * this.#settings.pollMs;
  }

  #source(upstream: UpstreamConfig): EngineSource | undefined {
    return this.#byUpstream.get(upstream);
  }

  async #fetch(url: string): Promise<{ statusCode: number; text: string }> {
    const response = await request(url, { dispatcher: this.#agent, signal: AbortSignal.timeout(this.#settings.timeoutMs) });
    return { statusCode: response.statusCode, text: await response.body.text() };
  }

  /** An `auto` engine's first answer: its load, as the engine whose names (or slots) it shows; null when none. */
  async #recognise(source: EngineSource): Promise<EngineLoad | null> {
    const { statusCode, text } = await this.#fetch(source.url);
    if (statusCode !== 200 && statusCode !== 404) throw new Error(`HTTP ${statusCode}`);
    for (const engine of statusCode === 200 ? RECOGNISED : []) {
      const load = readEngineLoad(ENGINE_METRICS[engine], text);
      if (load === null) continue;
      source.engine = engine;
      this.#log?.info({ url: source.url, engine }, 'engine recognised by its metrics');
      return load;
    }
    const slots = await this.#readSlots(source).catch(() => null);
    if (slots !== null) {
      source.engine = 'llamacpp';
      source.fromSlots = true;
      this.#log?.info({ url: source.origin + LLAMACPP_SLOTS_PATH, engine: source.engine }, 'engine recognised by its slots');
      return slots;
    }
    source.unrecognised = true;
    this.#log?.info({ url: source.url }, 'no engine recognised by its metrics page: the upstream is scored by its requests in flight, and not polled again');
    return null;
  }

  async #readMetrics(source: EngineSource): Promise<EngineLoad> {
    try {
      const { statusCode, text } = await this.#fetch(source.url);
      if (statusCode === 404) throw new NotPublished('HTTP 404');
      if (statusCode !== 200) throw new Error(`HTTP ${statusCode}`);
      const engine = source.engine!;
      const load = readEngineLoad(ENGINE_METRICS[engine], text);
      if (load === null) throw new NotPublished(`no ${ENGINE_METRICS[engine].waiting} in the page`);
      return load;
    } catch (error) {
      if (!(error instanceof NotPublished) || source.engine !== 'llamacpp') throw error;
      // Only a page that answers as llama.cpp's slots makes them the source; else the metrics' failure stands.
      const load = await this.#readSlots(source).catch(() => {
        throw error;
      });
      source.fromSlots = true;
      this.#log?.info({ url: source.origin + LLAMACPP_SLOTS_PATH }, "llama.cpp publishes no metrics page (--metrics); its slots are read instead");
      return load;
    }
  }

  async #readSlots(source: EngineSource): Promise<EngineLoad> {
    const { statusCode, text } = await this.#fetch(source.origin + LLAMACPP_SLOTS_PATH);
    if (statusCode !== 200) throw new Error(`HTTP ${statusCode} from ${LLAMACPP_SLOTS_PATH}`);
    const load = readSlotsLoad(text);
    if (load === null) throw new Error(`no slots in ${LLAMACPP_SLOTS_PATH}`);
    return load;
  }

  async #poll(source: EngineSource): Promise<void> {
    source.polling = true;
    try {
      const load = source.engine === null ? await this.#recognise(source) : source.fromSlots ? await this.#readSlots(source) : await this.#readMetrics(source);
      if (load === null) return;
      source.load = load;
      source.sampledAt = this.#now();
      source.inFlightAtSample = source.inFlight;
      if (source.failing) this.#log?.info({ url: source.url }, 'engine metrics answer again');
      source.failing = false;
    } catch (error) {
      this.#failedPolls += 1;
      if (!source.failing) this.#log?.warn({ url: source.url, err: error }, 'engine metrics poll failed; its upstream counts as saturated after three missed polls');
      source.failing = true;
    } finally {
      source.polling = false;
      this.onPolled?.();
    }
  }
}
