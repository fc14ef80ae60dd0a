// A chat completion's stream as Anthropic's Message stream: message_start (and a ping), then per
// content block content_block_start, its deltas (text_delta, input_json_delta) and
// content_block_stop, then message_delta (stop reason, usage) and message_stop. A failure after the
// stream opened is an `error` event. While nothing is sent for PING_EVERY_MS (a model slow between
// chunks, or reasoning that is not passed on) a ping keeps the connection in use.
import type { RequestContext } from '../../http/request-context.ts';
import { encoded, type EventBytes } from '../../streaming/event-bytes.ts';
import type { ChatChunk, ChatChunkChoice, StreamOut, StreamTranslator } from '../../streaming/stream-translator.ts';
import { reasoningOf } from '../../streaming/text-shape.ts';
import { anthropicErrorEvent, type StreamFailure } from './anthropic-errors.ts';
import { messageId, type Stop, stopOf, toolUseId, usageJson } from './message-parts.ts';

/** Anthropic's own streams ping about this often while a reply is slow to come. */
export const PING_EVERY_MS = 10_000;
export const PING_EVENT = 'event: ping\ndata: {"type":"ping"}\n\n';
const STOP_EVENT = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';

const NO_CALL = -1;

// A text delta is written from these pieces around the text's literal, the block's index between them.
const TEXT_DELTA_HEAD = encoded('event: content_block_delta\ndata: {"type":"content_block_delta","index":');
const TEXT_DELTA_MIDDLE = encoded(',"delta":{"type":"text_delta","text":');
const TEXT_DELTA_TAIL = encoded('}}\n\n');

export class MessageStream implements StreamTranslator {
  readonly #ctx: RequestContext;
  readonly #model: string;
  readonly #stops: readonly string[];
  #started = false;
  #ended = false;
  /** Blocks started so far; the open one, when #open says there is one, is the last. */
  #blocks = 0;
  #open: 'text' | 'thinking' | 'tool_use' | null = null;
  /** The chat tool call the open tool_use block carries. */
  #toolCall = NO_CALL;
  #stop: Stop | null = null;
  #inputTokens: number | null = null;
  #outputTokens = 0;
  #out: StreamOut | null = null;
  #pinger: NodeJS.Timeout | null = null;
  /** Nothing was sent since the last tick of #pinger. */
  #quiet = true;

  /** A reasoning model's thinking is sent as thinking blocks (the request asked for thinking). */
  readonly #showsThinking: boolean;

  /** `ctx`: the request, whose prompt tokens are counted before its stream starts. */
  constructor(ctx: RequestContext, model: string, stops: readonly string[], showsThinking = false) {
    this.#ctx = ctx;
    this.#model = model;
    this.#stops = stops;
    this.#showsThinking = showsThinking;
  }

  opened(out: StreamOut): void {
    if (this.#ended) return;
    this.#out = out;
    // One timer a stream, its state in fields: a chunk only clears #quiet.
    this.#pinger = setInterval(MessageStream.#ping, PING_EVERY_MS, this).unref();
  }

  chunk(chunk: ChatChunk): string {
    if (this.#ended) return '';
    let events = this.#start();
    const usage = chunk.usage;
    if (usage != null) {
      if (typeof usage.prompt_tokens === 'number') this.#inputTokens = usage.prompt_tokens;
      if (typeof usage.completion_tokens === 'number') this.#outputTokens = usage.completion_tokens;
    }
    const choice = chunk.choices?.[0];
    if (choice !== undefined && choice.index === 0) events += this.#choice(choice);
    if (events !== '') this.#quiet = false;
    return events;
  }

  textBytes(out: EventBytes, source: Uint8Array, start: number, end: number): void {
    if (this.#ended) return;
    if (!this.#started) out.text(this.#start());
    // `""`: the first chunk of a stream, with the role.
    if (end - start === 2) return;
    if (this.#open !== 'text') out.text(this.#openTextBlock());
    out.piece(TEXT_DELTA_HEAD);
    out.decimal(this.#blocks - 1);
    out.piece(TEXT_DELTA_MIDDLE);
    out.range(source, start, end);
    out.piece(TEXT_DELTA_TAIL);
    this.#quiet = false;
  }

  done(): string {
    if (this.#ended) return '';
    const events = this.#start() + this.#closeBlock();
    this.#end();
    const stop = this.#stop ?? stopOf(null, null, this.#stops);
    const input = this.#inputTokens ?? this.#ctx.promptTokens;
    return `${events}event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"${stop.reason}","stop_sequence":${JSON.stringify(stop.sequence)},"stop_details":null,"container":null},"usage":${usageJson(input, this.#outputTokens)}}\n\n${STOP_EVENT}`;
  }

  failed(error: StreamFailure): string {
    if (this.#ended) return '';
    this.#end();
    return anthropicErrorEvent(error, this.#ctx.requestId);
  }

  static readonly #ping = (stream: MessageStream): void => stream.#tick();

  #tick(): void {
    const out = this.#out;
    if (out === null || out.closed || this.#ended) {
      this.#end();
      return;
    }
    if (this.#quiet) out.write(PING_EVENT);
    this.#quiet = true;
  }

  #start(): string {
    if (this.#started) return '';
    this.#started = true;
    const message = `{"id":"${messageId()}","type":"message","role":"assistant","model":${JSON.stringify(this.#model)},"content":[],"stop_reason":null,"stop_sequence":null,"stop_details":null,"container":null,"diagnostics":null,"usage":${usageJson(this.#ctx.promptTokens, 0)}}`;
    return `event: message_start\ndata: {"type":"message_start","message":${message}}\n\n${PING_EVENT}`;
  }

  #choice(choice: ChatChunkChoice): string {
    let events = '';
    const delta = choice.delta;
    const thinking = this.#showsThinking && delta !== undefined ? reasoningOf(delta) : null;
    if (thinking !== null) {
      if (this.#open !== 'thinking') events += this.#closeBlock() + this.#startBlock('thinking', '{"type":"thinking","thinking":"","signature":""}');
      events += this.#delta(`{"type":"thinking_delta","thinking":${JSON.stringify(thinking)}}`);
    }
    const text = delta?.content;
    if (typeof text === 'string' && text !== '') events += this.#textDelta(JSON.stringify(text));
    for (const call of delta?.tool_calls ?? []) {
      if (this.#open !== 'tool_use' || call.index !== this.#toolCall) {
        events += this.#closeBlock();
        this.#toolCall = call.index;
        const block = `{"type":"tool_use","id":${JSON.stringify(toolUseId(call.id))},"name":${JSON.stringify(call.function?.name ?? '')},"input":{},"caller":{"type":"direct"}}`;
        events += this.#startBlock('tool_use', block);
      }
      const args = call.function?.arguments;
      if (typeof args === 'string' && args !== '') events += this.#delta(`{"type":"input_json_delta","partial_json":${JSON.stringify(args)}}`);
    }
    if (choice.finish_reason != null) {
      events += this.#closeBlock();
      this.#stop = stopOf(choice.finish_reason, (choice as { readonly stop_reason?: unknown }).stop_reason, this.#stops);
    }
    return events;
  }

  /** `literal`: the text as a JSON string. */
  #textDelta(literal: string): string {
    const start = this.#open === 'text' ? '' : this.#openTextBlock();
    return `${start}event: content_block_delta\ndata: {"type":"content_block_delta","index":${this.#blocks - 1},"delta":{"type":"text_delta","text":${literal}}}\n\n`;
  }

  #openTextBlock(): string {
    return this.#closeBlock() + this.#startBlock('text', '{"type":"text","text":"","citations":null}');
  }

  #startBlock(kind: 'text' | 'thinking' | 'tool_use', block: string): string {
    this.#open = kind;
    return `event: content_block_start\ndata: {"type":"content_block_start","index":${this.#blocks++},"content_block":${block}}\n\n`;
  }

  #delta(delta: string): string {
    return `event: content_block_delta\ndata: {"type":"content_block_delta","index":${this.#blocks - 1},"delta":${delta}}\n\n`;
  }

  #closeBlock(): string {
    if (this.#open === null) return '';
    this.#open = null;
    this.#toolCall = NO_CALL;
    return `event: content_block_stop\ndata: {"type":"content_block_stop","index":${this.#blocks - 1}}\n\n`;
  }

  #end(): void {
    this.#ended = true;
    if (this.#pinger !== null) clearInterval(this.#pinger);
    this.#pinger = null;
    this.#out = null;
  }
}
