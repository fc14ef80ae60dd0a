// Hands a local-engine result over at the model's simulated speed: a JSON completion after the
// whole generation time, or an SSE stream token by token (paced, with backpressure). Both resolve
// with the completion tokens that reached the client, which is what gets billed when it leaves early.
import type { LatencyProfile } from '../config/config-types.ts';
import type { EngineChoice, EngineResult } from '../engine/engine-types.ts';
import type { Abortable, RequestContext } from '../http/request-context.ts';
import { ChatChunks } from '../streaming/chat-chunks.ts';
import { completionId } from '../streaming/completion-id.ts';
import { type EventSink, openEventSink } from '../streaming/event-sink.ts';
import type { StreamTranslator } from '../streaming/stream-translator.ts';
import { DONE_FRAME, frame } from '../http/sse-frames.ts';
import { usageOf } from '../streaming/usage.ts';

export interface LocalStreamDelivery {
  readonly ctx: RequestContext;
  /** A stream of another protocol: what translates the chat events; null for chat. */
  readonly translator: StreamTranslator | null;
  readonly model: string;
  readonly includeUsage: boolean;
  readonly latency: LatencyProfile;
  readonly result: EngineResult;
  /** The request had tools or a response format: its choices may call tools. */
  readonly structured: boolean;
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
    choices: result.choices.map((choice, index) => {
      const shaped = { index, message: messageOf(choice), logprobs: null, finish_reason: choice.finishReason };
      return choice.stopSequence === undefined ? shaped : { ...shaped, stop_reason: choice.stopSequence };
    }),
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

function messageOf(choice: EngineChoice): Record<string, unknown> {
  if (choice.toolCalls === undefined) return { role: 'assistant', content: choice.pieces.join(''), refusal: null };
  return {
    role: 'assistant',
    content: null,
    refusal: null,
    tool_calls: choice.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.argumentPieces.join('') } })),
  };
}

/** A tool-calling choice's stream, one event per step: each call's id and name, then its argument fragments. */
function toolCallEvents(chunks: ChatChunks, index: number, choice: EngineChoice): string[] | null {
  if (choice.toolCalls === undefined) return null;
  const events: string[] = [];
  choice.toolCalls.forEach((call, callIndex) => {
    events.push(frame(chunks.toolCall(index, callIndex, call.id, call.name)));
    for (const fragment of call.argumentPieces) events.push(frame(chunks.toolArguments(index, callIndex, fragment)));
  });
  return events;
}

class LocalStream {
  readonly #delivery: LocalStreamDelivery;
  readonly #writer: EventSink;
  readonly #chunks: ChatChunks;
  /** Per choice: its events when it calls tools, else null (its steps are its pieces). */
  readonly #toolEvents: (string[] | null)[] | null = null;
  readonly #steps: number;
  readonly #perTick: number;
  readonly #tickMs: number;
  #step = 0;
  #timer: NodeJS.Timeout | null = null;
  #resolve: (tokens: number) => void = () => {};

  constructor(delivery: LocalStreamDelivery) {
    this.#delivery = delivery;
    this.#writer = openEventSink(delivery.ctx, delivery.translator);
    this.#chunks = new ChatChunks(completionId(), Math.floor(Date.now() / 1000), delivery.model, delivery.includeUsage);
    const { choices } = delivery.result;
    if (delivery.structured && choices.some((choice) => choice.toolCalls !== undefined)) this.#toolEvents = choices.map((choice, index) => toolCallEvents(this.#chunks, index, choice));
    this.#steps = Math.max(1, ...choices.map((choice, index) => this.#stepsOf(choice, index)));
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

  #stepsOf(choice: EngineChoice, index: number): number {
    return this.#toolEvents?.[index]?.length ?? choice.pieces.length;
  }

  #start(): void {
    const { choices } = this.#delivery.result;
    const callsTools = this.#toolEvents?.map((events) => events !== null);
    const events = frame(this.#chunks.role(choices.length, callsTools)) + this.#nextEvents();
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
        const toolEvents = this.#toolEvents?.[index];
        if (toolEvents != null) events += toolEvents[this.#step] ?? '';
        else {
          const piece = choice.pieces[this.#step];
          if (piece !== undefined) events += frame(this.#chunks.content(index, piece));
        }
        if (this.#step === Math.max(1, this.#stepsOf(choice, index)) - 1) events += frame(this.#chunks.finish(index, choice.finishReason, choice.stopSequence));
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
    this.#delivery.result.choices.forEach((choice, index) => {
      const steps = this.#stepsOf(choice, index);
      delivered += steps === 0 ? 0 : Math.round((choice.completionTokens * Math.min(this.#step, steps)) / steps);
    });
    this.#resolve(delivered);
  }
}
