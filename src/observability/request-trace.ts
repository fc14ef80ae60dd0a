// One request's spans: the SERVER span from arrival to the end of the response, its phases (auth,
// rate limit, dispatch) as children, and each upstream attempt as a CLIENT span under dispatch,
// whose context goes upstream in `traceparent`. Attributes follow the HTTP and GenAI semantic
// conventions; the key's id is recorded, never the key. A request the sampler dropped makes no
// child spans, but its upstream still gets a traceparent (flagged not sampled).
import { type Attributes, type Context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { maskApiKeys } from '../auth/mask-api-keys.ts';
import type { UpstreamConfig } from '../config/config-types.ts';
import { type RequestRecord, UNMATCHED_ROUTE } from './request-record.ts';
import { finalStatus, OUTCOMES, outcomeIndex } from './request-outcome.ts';
import type { Tracing } from './tracing.ts';
import { UpstreamSpan } from './upstream-span.ts';

export type Phase = 'munja.auth' | 'munja.rate_limit' | 'munja.dispatch';

const headerSetter = {
  set(carrier: Record<string, string>, key: string, value: string) {
    carrier[key] = value;
  },
};

/** Client-chosen strings (model names) are cut to this on spans. */
const MAX_NAME_CHARS = 256;

export class RequestTrace {
  readonly #tracing: Tracing;
  readonly #span: Span;
  readonly #context: Context;
  /** False when the sampler dropped the request: then nothing but the upstream traceparent is done. */
  readonly recording: boolean;
  readonly traceId: string;
  readonly spanId: string;
  #phase: Span | null = null;
  /** Upstream attempts hang off the dispatch span while it is open. */
  #dispatchContext: Context | null = null;
  #finishReasons: string[] | null = null;
  #responseModel: string | null = null;

  constructor(tracing: Tracing, ctx: RequestRecord, parent: Context) {
    this.#tracing = tracing;
    this.#span = tracing.tracer.startSpan(ctx.method, { kind: SpanKind.SERVER }, parent);
    this.#context = trace.setSpan(parent, this.#span);
    const spanContext = this.#span.spanContext();
    this.traceId = spanContext.traceId;
    this.spanId = spanContext.spanId;
    this.recording = this.#span.isRecording();
    // Set after the sampler's decision (it reads none of them): a dropped request skips the work.
    if (this.recording) {
      this.#span.setAttributes({ 'http.request.method': ctx.method, 'url.path': maskApiKeys(ctx.path).slice(0, 2048), 'munja.request_id': ctx.requestId });
    }
  }

  /** Whether prompts and completions are recorded (the operator opted in, and the request is sampled). */
  get capturesContent(): boolean {
    return this.recording && this.#tracing.captureContent;
  }

  /** Ends the open phase, if any, and opens `phase`. */
  enter(phase: Phase): void {
    if (!this.recording) return;
    this.#phase?.end();
    this.#phase = this.#tracing.tracer.startSpan(phase, { kind: SpanKind.INTERNAL }, this.#context);
    this.#dispatchContext = phase === 'munja.dispatch' ? trace.setSpan(this.#context, this.#phase) : null;
  }

  /** Ends the open phase, with `attributes` added. */
  leave(attributes?: Attributes): void {
    const phase = this.#phase;
    if (phase === null) return;
    if (attributes !== undefined) phase.setAttributes(attributes);
    phase.end();
    this.#phase = null;
  }

  /** One attempt at an upstream: its span (null when not sampled), and its traceparent written into `headers`. */
  upstream(upstream: UpstreamConfig, stream: boolean, headers: Record<string, string>): UpstreamSpan | null {
    const propagator = this.#tracing.propagator;
    if (!this.recording) {
      propagator.inject(this.#context, headers, headerSetter);
      return null;
    }
    const parent = this.#dispatchContext ?? this.#context;
    const span = new UpstreamSpan(this.#tracing.tracer, parent, upstream, stream, this);
    propagator.inject(trace.setSpan(parent, span.span), headers, headerSetter);
    return span;
  }

  /** The request left the admission queue (sent, refused or its client gone): its wait, on the request's span and as an event of the open phase. */
  queued(waitedMs: number, priority: string, outcome: 'admitted' | 'refused' | 'left'): void {
    if (!this.recording) return;
    const attributes = { 'munja.queue.wait_ms': waitedMs, 'munja.queue.priority': priority, 'munja.queue.outcome': outcome };
    this.#span.setAttributes(attributes);
    this.#phase?.addEvent('munja.queue', attributes);
  }

  /** The model that serves the request (a route's choice, or the one asked for). */
  served(modelId: string): void {
    this.#responseModel = modelId;
  }

  addFinishReasons(reasons: readonly string[]): void {
    if (reasons.length === 0) return;
    this.#finishReasons = this.#finishReasons === null ? [...reasons] : [...this.#finishReasons, ...reasons];
  }

  /** The prompt, when capturesContent. */
  recordInput(messages: unknown): void {
    this.#span.setAttribute('gen_ai.input.messages', JSON.stringify(messages));
  }

  /** A JSON completion's choices, when capturesContent. */
  recordOutput(choices: unknown): void {
    this.#span.setAttribute('gen_ai.output.messages', JSON.stringify(choices));
  }

  /** Called once, when the request is done: the response's attributes, then the spans end. */
  finish(ctx: RequestRecord): void {
    if (!this.recording) return;
    const status = finalStatus(ctx);
    const outcome = OUTCOMES[outcomeIndex(ctx)]!;
    const failed = status >= 500 || outcome === 'stream_failed';
    if (this.#phase !== null) {
      // A phase still open is where the request stopped.
      if (ctx.errorCode !== null) this.#phase.setAttribute('error.type', ctx.errorCode);
      if (failed) this.#phase.setStatus({ code: SpanStatusCode.ERROR });
      this.leave();
    }
    const span = this.#span;
    const attributes: Attributes = { 'http.response.status_code': status, 'munja.outcome': outcome };
    if (ctx.route !== UNMATCHED_ROUTE) {
      attributes['http.route'] = ctx.route;
      span.updateName(`${ctx.method} ${ctx.route}`);
    }
    if (ctx.keyId !== null) attributes['munja.key_id'] = ctx.keyId;
    if (ctx.errorCode !== null) attributes['error.type'] = ctx.errorCode;
    if (ctx.model !== null) {
      attributes['gen_ai.operation.name'] = 'chat';
      attributes['gen_ai.request.model'] = maskApiKeys(ctx.model.slice(0, MAX_NAME_CHARS));
      attributes['munja.stream'] = ctx.stream;
    }
    if (this.#responseModel !== null) attributes['gen_ai.response.model'] = this.#responseModel;
    if (ctx.promptTokens > 0) attributes['gen_ai.usage.input_tokens'] = ctx.promptTokens;
    if (ctx.completionTokens > 0) attributes['gen_ai.usage.output_tokens'] = ctx.completionTokens;
    if (ctx.firstEventMs !== null) attributes['gen_ai.response.time_to_first_chunk'] = ctx.firstEventMs / 1000;
    if (this.#finishReasons !== null) attributes['gen_ai.response.finish_reasons'] = this.#finishReasons;
    span.setAttributes(attributes);
    if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: ctx.errorCode ?? undefined });
    span.end();
  }
}
