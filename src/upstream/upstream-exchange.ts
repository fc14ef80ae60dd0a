// One request to an upstream, relayed to one client, as an undici dispatch handler: the client's
// backpressure pauses the upstream read, the client's disconnect aborts the upstream request, and
// a failure becomes the right error for how far the response got. The request is the chat
// completion, or a request of another API relayed as it is (native-request.ts): the two differ only
// in what is sent, how a JSON answer is read and which filter a stream passes through.
import type { Dispatcher } from 'undici';
import type { UpstreamConfig, UpstreamTimeouts } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Abortable, RequestContext } from '../http/request-context.ts';
import type { UpstreamSpan } from '../observability/upstream-span.ts';
import { openEventSink } from '../streaming/event-sink.ts';
import type { StreamTranslator } from '../streaming/stream-translator.ts';
import type { ChatRequestBody } from '../validation/chat-request.ts';
import type { JsonBody } from '../validation/json-body.ts';
import { scanCompletion, withModel } from './completion-scan.ts';
import { MessagesStreamFilter } from './messages-stream-filter.ts';
import { nativeReply } from './native-reply.ts';
import { countOr0 } from './native-usage.ts';
import { buildNativeRequest, type NativeRequest } from './native-request.ts';
import { type NativeStreamFilter, openNativeSink } from './native-stream-filter.ts';
import { ResponsesStreamFilter } from './responses-stream-filter.ts';
import { StreamEventFilter } from './stream-event-filter.ts';
import { BrokenStream, StreamRelay } from './stream-relay.ts';
import { isTimeout, statusFailure, transportError, transportFailure, UpstreamAttemptError } from './upstream-errors.ts';
import { buildUpstreamRequest } from './upstream-request.ts';

export interface UpstreamCall {
  /** The client: its going away aborts the upstream request. */
  readonly client: Abortable;
  /** For a stream, the response it is relayed to; null for a JSON completion returned to the caller. */
  readonly streamTo: RequestContext | null;
  /** A stream of another protocol: what translates the relayed chat events; null for chat. */
  readonly translator: StreamTranslator | null;
  readonly dispatcher: Dispatcher;
  readonly upstream: UpstreamConfig;
  readonly publicModel: string;
  readonly body: ChatRequestBody;
  /** The text `body` was parsed from, sent on with the upstream's model spliced in; null: `body` is serialised. */
  readonly source: JsonBody | null;
  readonly includeUsage: boolean;
  /** The client's request of another API, relayed as it is to this upstream (which speaks it); null: the chat request. */
  readonly native: NativeRequest | null;
  readonly timeouts: UpstreamTimeouts;
  /** Headers for the client's response (rate limits, …). */
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON completion is wanted as bytes ready to send (`bytes`), not parsed (`body`). */
  readonly asBytes: boolean;
  /** The model's price tells cached prompt tokens apart: only then are they read from a JSON completion. */
  readonly cachedInputPriced: boolean;
}

export interface UpstreamOutcome {
  /** The upstream's own count, when it reported usage. */
  readonly promptTokens: number | null;
  readonly completionTokens: number;
  /** Of the prompt tokens, those the upstream read from its cache, when it said (and, for a JSON completion, the price asks). */
  readonly cachedPromptTokens?: number;
  /** Without streaming: the completion to send, `model` already set to the public id. */
  readonly body?: Record<string, unknown>;
  /** The same as bytes, when the call asked for them (and the completion could be read without parsing). */
  readonly bytes?: Uint8Array;
  /** A native call's JSON answer, in its API's shape, `model` already set to the public id. */
  readonly nativeBody?: Uint8Array;
  /** Upstream headers worth passing on to the client. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The stream broke mid-way on the upstream's side (the client got an error event). */
  readonly failed?: boolean;
}

/** Bodies we read whole (JSON answers, error bodies) are capped. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
const MAX_JSON_BODY_BYTES = 32 * 1024 * 1024;

const NO_BYTES = Buffer.alloc(0);
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

class ClientClosed extends Error {
  override name = 'ClientClosed';
}

/** Why an upstream request is aborted when its client goes away: one marker for all, never thrown. */
const CLIENT_CLOSED = new ClientClosed();

/** Told once how an exchange ended: its outcome, or why it failed. */
export interface ExchangeListener {
  /** A stream's first bytes arrived: the engine has prefilled the prompt (its first token is in them). */
  streamStarted(): void;
  succeeded(outcome: UpstreamOutcome): void;
  failed(error: UpstreamAttemptError): void;
}

/** Sends the request; `listener` hears how it ends (no promise: the caller may be one already). */
export function startExchange(call: UpstreamCall, listener: ExchangeListener): void {
  const exchange = new UpstreamExchange(call, listener);
  const options = call.native === null ? buildUpstreamRequest(call) : buildNativeRequest(call, call.native);
  const trace = call.client.trace;
  if (trace != null) {
    const propagated: Record<string, string> = {};
    exchange.span = trace.upstream(call.upstream, call.streamTo !== null, propagated);
    for (const [name, value] of Object.entries(propagated)) options.headers.push(name, value);
  }
  call.dispatcher.dispatch(options, exchange);
}

type Mode = 'waiting' | 'error' | 'json' | 'stream' | 'done';

class UpstreamExchange implements Dispatcher.DispatchHandler {
  readonly #call: UpstreamCall;
  readonly #listener: ExchangeListener;
  #mode: Mode = 'waiting';
  #status = 0;
  #retryAfter: string | undefined;
  // The body read whole: its first chunk alone (a JSON answer is mostly one), every chunk once
  // there are more.
  #firstChunk: Buffer | null = null;
  #chunks: Buffer[] | null = null;
  #bytes = 0;
  #stream: StreamRelay | null = null;
  #streamStarted = false;
  #passHeaders: Readonly<Record<string, string>> = NO_HEADERS;
  /** This attempt's span when the request is traced and sampled. */
  span: UpstreamSpan | null = null;

  constructor(call: UpstreamCall, listener: ExchangeListener) {
    this.#call = call;
    this.#listener = listener;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    const { client } = this.#call;
    if (client.aborted) return controller.abort(CLIENT_CLOSED);
    // Bound rather than a closure: a third smaller, made on every request.
    client.onAbort = controller.abort.bind(controller, CLIENT_CLOSED);
  }

  onResponseStart(controller: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>): void {
    // undici keeps the raw header buffers on the controller for the whole response; what is needed
    // is in `headers`, and a long stream would hold a dozen small buffers for nothing.
    controller.rawHeaders = null;
    this.#status = status;
    this.span?.responseStarted(status);
    if (status < 200 || status > 299) {
      this.#mode = 'error';
      this.#retryAfter = single(headers['retry-after']);
      return;
    }
    const call = this.#call;
    if (call.streamTo === null) {
      this.#mode = 'json';
      this.#passHeaders = passThrough(headers);
      return;
    }
    const clientHeaders = { ...call.headers, ...passThrough(headers) };
    if (!single(headers['content-type'])?.startsWith('text/event-stream')) {
      this.#mode = 'error';
      return controller.abort(new Error('the upstream answered a stream request without an event stream'));
    }
    this.#mode = 'stream';
    const { native, streamTo } = call;
    if (native === null) {
      const filter = new StreamEventFilter({ upstreamModel: call.upstream.model, publicModel: call.publicModel, forwardUsage: call.includeUsage });
      this.#stream = new StreamRelay(controller, openEventSink(streamTo, call.translator), filter, clientHeaders, call.timeouts.maxEventBytes);
    } else {
      const filter: NativeStreamFilter = native.api === 'responses' ? new ResponsesStreamFilter(call.publicModel) : new MessagesStreamFilter(call.publicModel);
      this.#stream = new StreamRelay(controller, openNativeSink(streamTo, filter), filter, clientHeaders, call.timeouts.maxEventBytes);
    }
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#mode === 'stream') {
      this.span?.chunk(chunk);
      if (!this.#streamStarted) {
        this.#streamStarted = true;
        this.#listener.streamStarted();
      }
      return this.#stream!.relay(chunk);
    }
    this.#bytes += chunk.length;
    const cap = this.#mode === 'json' ? MAX_JSON_BODY_BYTES : MAX_ERROR_BODY_BYTES;
    if (this.#bytes > cap) {
      if (this.#mode === 'json') return controller.abort(new Error('upstream response too large'));
      return; // the start of an error body is enough for its message
    }
    if (this.#firstChunk === null) this.#firstChunk = chunk;
    else if (this.#chunks === null) this.#chunks = [this.#firstChunk, chunk];
    else this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    const mode = this.#mode;
    this.#mode = 'done';
    this.#call.client.onAbort = null;
    if (mode === 'error') return this.#fail(statusFailure(this.#status, this.#text(), this.#retryAfter));
    if (mode === 'json') return this.#call.native === null ? this.#finishJson() : this.#finishNativeJson(this.#call.native);
    const stream = this.#stream!;
    const { filter } = stream;
    const streamTo = this.#call.streamTo!;
    // The upstream's own error event was relayed (as ours): the stream failed though it ended well.
    if (filter.upstreamError !== null) streamTo.errorCode = filter.upstreamError.code;
    const incomplete = filter.upstreamError === null ? stream.incompleteness() : null;
    if (incomplete !== null) {
      // A cut completion must not look like a whole one: it ends with an error event, as a broken connection does.
      const failure = new ApiError('upstream_error', { message: incomplete });
      streamTo.errorCode = failure.code;
      stream.end(filter.failureEvents(failure));
      return this.#succeed({ ...this.#streamOutcome(), failed: true }, failure.code);
    }
    stream.end(filter.closingEvents());
    this.#succeed(this.#streamOutcome(), filter.upstreamError?.code ?? null);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    const mode = this.#mode;
    this.#mode = 'done';
    const { client, streamTo } = this.#call;
    client.onAbort = null;
    if (error === CLIENT_CLOSED || client.aborted) return this.#succeed(this.#streamOutcome(), null);
    if (mode === 'waiting') return this.#fail(transportFailure(error));
    if (mode !== 'stream') return this.#fail(mode === 'json' && !isTimeout(error) && this.#bytes > MAX_JSON_BODY_BYTES
      ? invalidResponse('The model server sent a response larger than this service accepts.')
      : new UpstreamAttemptError(transportError(error), false, 'failed'));
    const failure = isTimeout(error)
      ? new ApiError('upstream_timeout', { message: 'The model server stopped sending mid-stream.' })
      : new ApiError('upstream_error', { message: error instanceof BrokenStream ? error.message : 'The model server connection failed mid-stream.' });
    streamTo!.errorCode = failure.code;
    const stream = this.#stream!;
    stream.end(stream.filter.failureEvents(failure)); // after the events that arrived whole before the failure
    this.#succeed({ ...this.#streamOutcome(), failed: true }, failure.code);
  }

  /** Resolves the attempt; `errorCode`: the stream it relayed failed. */
  #succeed(outcome: UpstreamOutcome, errorCode: string | null): void {
    this.span?.end(outcome, errorCode);
    this.#listener.succeeded(outcome);
  }

  #fail(error: UpstreamAttemptError): void {
    this.span?.end(null, error.apiError.code);
    this.#listener.failed(error);
  }

  #finishJson(): void {
    const bytes = this.#receivedBytes();
    // Bytes in, bytes out: the completion is checked and read in one pass, not parsed and serialised.
    const call = this.#call;
    const facts = call.asBytes && this.span === null ? scanCompletion(bytes, call.cachedInputPriced) : null;
    if (facts !== null) {
      this.#succeed({
        promptTokens: finiteOrNull(facts.promptTokens),
        completionTokens: finiteOrNull(facts.completionTokens) ?? 0,
        cachedPromptTokens: facts.cachedTokens ?? 0,
        bytes: withModel(bytes, facts, this.#call.publicModel),
        headers: this.#passHeaders,
      }, null);
      return;
    }
    let completion: Record<string, unknown>;
    try {
      completion = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
      if (completion === null || typeof completion !== 'object' || !Array.isArray(completion.choices)) throw new Error('not a completion');
      // No choice finished: the generation was cut short.
      if (!completion.choices.some((choice) => typeof (choice as { finish_reason?: unknown } | null)?.finish_reason === 'string')) throw new Error('an unfinished completion');
    } catch {
      return this.#fail(invalidResponse('The model server sent an invalid response.'));
    }
    this.span?.completion(completion);
    completion.model = this.#call.publicModel;
    const usage = completion.usage as { prompt_tokens?: unknown; completion_tokens?: unknown; prompt_tokens_details?: { cached_tokens?: unknown } | null } | undefined;
    const promptTokens = Number(usage?.prompt_tokens);
    const completionTokens = Number(usage?.completion_tokens);
    this.#succeed({
      promptTokens: Number.isFinite(promptTokens) ? promptTokens : null,
      completionTokens: Number.isFinite(completionTokens) ? completionTokens : 0,
      cachedPromptTokens: call.cachedInputPriced ? countOr0(usage?.prompt_tokens_details?.cached_tokens) : 0,
      body: completion,
      headers: this.#passHeaders,
    }, null);
  }

  #finishNativeJson(native: NativeRequest): void {
    const reply = nativeReply(native.api, this.#receivedBytes(), this.#call.publicModel);
    if (reply === null) return this.#fail(invalidResponse('The model server sent an invalid response.'));
    this.#succeed({
      promptTokens: reply.promptTokens, completionTokens: reply.completionTokens, cachedPromptTokens: reply.cachedPromptTokens, nativeBody: reply.bytes, headers: this.#passHeaders,
    }, null);
  }

  #streamOutcome(): UpstreamOutcome {
    const filter = this.#stream?.filter;
    if (filter === undefined) return { promptTokens: null, completionTokens: 0 };
    const { usage } = filter;
    return { promptTokens: usage?.promptTokens ?? null, completionTokens: usage?.completionTokens ?? filter.contentEvents, cachedPromptTokens: usage?.cachedPromptTokens ?? 0 };
  }

  #text(): string {
    return this.#receivedBytes().toString('utf8');
  }

  #receivedBytes(): Buffer {
    return this.#chunks !== null ? Buffer.concat(this.#chunks) : this.#firstChunk ?? NO_BYTES;
  }
}

// A complete answer that is unusable: the generation already ran, so it is not repeated.
function invalidResponse(message: string): UpstreamAttemptError {
  return new UpstreamAttemptError(new ApiError('upstream_error', { message }), false, 'failed');
}

function finiteOrNull(value: number | null): number | null {
  return value !== null && Number.isFinite(value) ? value : null;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Upstream headers worth keeping; hop-by-hop and everything else stay behind. */
function passThrough(headers: Record<string, string | string[] | undefined>): Readonly<Record<string, string>> {
  const requestId = single(headers['x-request-id']);
  const processing = single(headers['openai-processing-ms']);
  if (!requestId && !processing) return NO_HEADERS;
  const kept: Record<string, string> = {};
  if (requestId) kept['x-upstream-request-id'] = requestId.slice(0, 200);
  if (processing) kept['openai-processing-ms'] = processing.slice(0, 20);
  return kept;
}
