// The CLIENT span of one request to an upstream model server (GenAI inference span, `chat <model>`):
// fed by the upstream exchange's events, so it sees the status, the first streamed chunk, the
// finish reasons and usage without a second pass over the body.
import { type Context, type Span, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import type { UpstreamConfig } from '../config/config-types.ts';

/** Where the finish reasons go besides this span (the request's span). */
interface FinishReasonSink {
  addFinishReasons(reasons: readonly string[]): void;
}

const FINISH_REASON = Buffer.from('"finish_reason"');
const [QUOTE, COLON, SPACE] = [34, 58, 32];
const MAX_REASON_CHARS = 64;

export class UpstreamSpan {
  readonly span: Span;
  readonly #startedAt = performance.now();
  readonly #sink: FinishReasonSink;
  #firstChunk = false;
  readonly #finishReasons: string[] = [];

  constructor(tracer: Tracer, parent: Context, upstream: UpstreamConfig, stream: boolean, sink: FinishReasonSink) {
    this.#sink = sink;
    const url = new URL(upstream.origin);
    this.span = tracer.startSpan(`chat ${upstream.model}`, {
      kind: SpanKind.CLIENT,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': upstream.model,
        'server.address': url.hostname,
        'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
        'http.request.method': 'POST',
        'munja.stream': stream,
      },
    }, parent);
  }

  responseStarted(status: number): void {
    this.span.setAttribute('http.response.status_code', status);
  }

  /** A streamed body chunk: the first one's time, and any finish_reason values in it. */
  chunk(chunk: Buffer): void {
    if (!this.#firstChunk) {
      this.#firstChunk = true;
      this.span.setAttribute('gen_ai.response.time_to_first_chunk', (performance.now() - this.#startedAt) / 1000);
    }
    let at = chunk.indexOf(FINISH_REASON);
    while (at !== -1) {
      const reason = stringValueAt(chunk, at + FINISH_REASON.length);
      if (reason !== null) this.#finishReasons.push(reason);
      at = chunk.indexOf(FINISH_REASON, at + FINISH_REASON.length);
    }
  }

  /** A JSON completion: its finish reasons and the model the server says answered. */
  completion(body: Record<string, unknown>): void {
    if (typeof body.model === 'string') this.span.setAttribute('gen_ai.response.model', body.model.slice(0, MAX_REASON_CHARS * 4));
    for (const choice of body.choices as unknown[]) {
      const reason = (choice as { finish_reason?: unknown } | null)?.finish_reason;
      if (typeof reason === 'string') this.#finishReasons.push(reason.slice(0, MAX_REASON_CHARS));
    }
  }

  /** The attempt ended: usage when known, an error code when it failed. */
  end(usage: { promptTokens: number | null; completionTokens: number } | null, errorCode: string | null): void {
    const span = this.span;
    if (usage !== null) {
      if (usage.promptTokens !== null) span.setAttribute('gen_ai.usage.input_tokens', usage.promptTokens);
      span.setAttribute('gen_ai.usage.output_tokens', usage.completionTokens);
    }
    if (this.#finishReasons.length > 0) {
      span.setAttribute('gen_ai.response.finish_reasons', this.#finishReasons);
      this.#sink.addFinishReasons(this.#finishReasons);
    }
    if (errorCode !== null) {
      span.setAttribute('error.type', errorCode);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  }
}

/** The JSON string after a key whose name ends at `at` (`: "stop"`), or null (e.g. `null`). */
function stringValueAt(chunk: Buffer, at: number): string | null {
  while (chunk[at] === SPACE) at++;
  if (chunk[at] !== COLON) return null;
  at++;
  while (chunk[at] === SPACE) at++;
  if (chunk[at] !== QUOTE) return null;
  const end = chunk.indexOf(QUOTE, at + 1);
  if (end === -1 || end - at - 1 > MAX_REASON_CHARS) return null;
  return chunk.toString('utf8', at + 1, end);
}
