// Hands a local-engine result over at the model's simulated speed: a JSON completion after the
// whole generation time, or an SSE stream token by token (paced, with backpressure). Both resolve
// with the completion tokens that reached the client, which is what gets billed when it leaves early.
import type { LatencyProfile } from '../config/config-types.ts';
import type { EngineResult } from '../engine/engine-types.ts';
import type { Abortable, RequestContext } from '../http/request-context.ts';
import { ChatChunks } from '../streaming/chat-chunks.ts';
import { completionId } from '../streaming/completion-id.ts';
import { DONE_FRAME, SseWriter, frame } from '../streaming/sse-writer.ts';
import { usageOf } from '../streaming/usage.ts';

export interface LocalStreamDelivery {
  readonly ctx: RequestContext;
  readonly model: string;
  readonly includeUsage: boolean;
  readonly latency: LatencyProfile;
  readonly result: EngineResult;
  readonly headers: Readonly<Record<string, string>>;
}

export interface LocalJson {
  /** null when the client left before the generation time was over. */
  readonly body: Record<string, unknown> | null;
  readonly completionTokens: number;
}

// Below ~4 ms per tick timers cost more than they pace: faster profiles send several tokens a tick.
const MIN_TICK_MS = 4;

export function streamLocal(delivery: LocalStreamDelivery): Promise<number> {
  return new LocalStream(delivery).run();
}

function totalCompletionTokens(result: EngineResult): number {
  let total = 0;
  for (const choice of result.choices) total += choice.completionTokens;
  return total;
}

function generationMs(latency: LatencyProfile, tokens: number): number {
  const speed = latency.tokensPerSecond > 0 ? (tokens * 1000) / latency.tokensPerSecond : 0;
  return latency.timeToFirstTokenMs + speed;
}

export function localJson(client: Abortable, model: string, latency: LatencyProfile, result: EngineResult): Promise<LocalJson> {
  const completionTokens = totalCompletionTokens(result);
  const body = {
    id: completionId(),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    system_fingerprint: null,
    choices: result.choices.map((choice, index) => ({
      index,
      message: { role: 'assistant', content: choice.pieces.join(''), refusal: null },
      logprobs: null,
      finish_reason: choice.finishReason,
    })),
    usage: usageOf(result.promptTokens, completionTokens),
  };
  const longest = Math.max(...result.choices.map((choice) => choice.completionTokens));
  const waitMs = generationMs(latency, longest);
  if (waitMs <= 0) return Promise.resolve({ body, completionTokens });
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      client.onAbort = null;
      resolve({ body, completionTokens });
    }, waitMs);
    client.onAbort = () => {
      clearTimeout(timer);
      resolve({ body: null, completionTokens: 0 });
    };
  });
}

class LocalStream {
  readonly #delivery: LocalStreamDelivery;
  readonly #writer: SseWriter;
  readonly #chunks: ChatChunks;
  readonly #steps: number;
  readonly #perTick: number;
  readonly #tickMs: number;
  #step = 0;
  #timer: NodeJS.Timeout | null = null;
  #resolve: (tokens: number) => void = () => {};

  constructor(delivery: LocalStreamDelivery) {
    this.#delivery = delivery;
    this.#writer = new SseWriter(delivery.ctx);
    this.#chunks = new ChatChunks(completionId(), Math.floor(Date.now() / 1000), delivery.model, delivery.includeUsage);
    this.#steps = Math.max(1, ...delivery.result.choices.map((choice) => choice.pieces.length));
    const { tokensPerSecond } = delivery.latency;
    const intervalMs = tokensPerSecond > 0 ? 1000 / tokensPerSecond : 0;
    this.#perTick = intervalMs === 0 ? this.#steps : Math.max(1, Math.ceil(MIN_TICK_MS / intervalMs));
    this.#tickMs = this.#perTick * intervalMs;
  }

  run(): Promise<number> {
    return new Promise((resolve) => {
      this.#resolve = resolve;
      this.#delivery.ctx.onAbort = () => this.#stop();
      const { timeToFirstTokenMs } = this.#delivery.latency;
      if (timeToFirstTokenMs > 0) this.#timer = setTimeout(() => this.#start(), timeToFirstTokenMs);
      else this.#start();
    });
  }

  #start(): void {
    const events = frame(this.#chunks.role(this.#delivery.result.choices.length)) + this.#nextEvents();
    const writable = this.#writer.open(this.#delivery.headers, events);
    this.#continue(writable);
  }

  #tick(): void {
    this.#timer = null;
    this.#continue(this.#writer.write(this.#nextEvents()));
  }

  #continue(writable: boolean): void {
    if (this.#writer.closed) return;
    if (this.#step >= this.#steps) return this.#finish();
    if (!writable) return this.#writer.whenWritable(() => this.#schedule());
    this.#schedule();
  }

  #schedule(): void {
    if (this.#tickMs <= 0) this.#tick();
    else this.#timer = setTimeout(() => this.#tick(), this.#tickMs);
  }

  #nextEvents(): string {
    const { choices } = this.#delivery.result;
    const end = Math.min(this.#steps, this.#step + this.#perTick);
    let events = '';
    for (; this.#step < end; this.#step++) {
      for (let index = 0; index < choices.length; index++) {
        const choice = choices[index]!;
        const piece = choice.pieces[this.#step];
        if (piece !== undefined) events += frame(this.#chunks.content(index, piece));
        if (this.#step === Math.max(1, choice.pieces.length) - 1) events += frame(this.#chunks.finish(index, choice.finishReason));
      }
    }
    return events;
  }

  #finish(): void {
    const { result, includeUsage, ctx } = this.#delivery;
    const completionTokens = totalCompletionTokens(result);
    const usage = includeUsage ? frame(this.#chunks.usage(usageOf(result.promptTokens, completionTokens))) : '';
    ctx.onAbort = null;
    this.#writer.end(usage + DONE_FRAME);
    this.#resolve(completionTokens);
  }

  /** The client left: stop producing and bill what was sent. */
  #stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    let delivered = 0;
    for (const choice of this.#delivery.result.choices) {
      const sent = Math.min(this.#step, choice.pieces.length);
      delivered += choice.pieces.length === 0 ? 0 : Math.round((choice.completionTokens * sent) / choice.pieces.length);
    }
    this.#resolve(delivered);
  }
}
