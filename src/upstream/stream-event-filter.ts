// Looks at each upstream SSE event as bytes and decides what the client gets: the event as is
// (usually), with `model` rewritten to the public id, our own error event instead of the
// upstream's, or nothing (the usage chunk we asked for on the client's behalf). Only the rare
// events that carry usage or an error are parsed as JSON. A rewritten event is handed on as three
// ranges (the upstream's bytes before and after the model, our id between), never copied here: a
// copy would come from Node's shared 8 KiB buffer pool, whose slabs live long enough to be
// promoted and are then freed only by a full collection.
// It also learns whether the stream is complete: a choice finished (a `finish_reason` string),
// and every event is made of SSE lines. A `[DONE]` before any finish is held back: the stream is
// then ended with an error event instead (see upstream-exchange.ts).
// The keys it looks at ("model", "usage", "content", "arguments", "finish_reason") are found with or without
// spaces around the colon (Python's json.dumps writes `"model": "x"`). A content delta shaped like
// one seen before in the stream is recognised without a key search (see event-shape.ts); a shape is
// never learned from an event that finishes a choice, so the events that fit one finish nothing.
import { ApiError } from '../errors/api-error.ts';
import type { ByteBatch } from '../streaming/byte-batch.ts';
import { DONE_FRAME, errorEvents } from '../http/sse-frames.ts';
import { EventShape } from './event-shape.ts';
import { countOr0 } from './native-usage.ts';
import { sseLines } from './sse-lines.ts';
import type { StreamFilter, StreamUsage } from './stream-relay.ts';

const [DATA, DONE, ERROR_START] = ['data:', '[DONE]', '{"error":'];
// The names of the keys looked at, without their opening quote (see keyIn).
const [MODEL, USAGE, CONTENT, ARGUMENTS, FINISH_REASON] = ['model"', 'usage"', 'content"', 'arguments"', 'finish_reason"'];
const [QUOTE, COLON, SPACE, OPEN_BRACE] = [34, 58, 32, 123];

const modelFields = new Map<string, Buffer>();

// How many times a stream learns the shape of its content events (see EventShape): once is the
// rule; a few more cover a server whose first deltas differ from the rest, without making a shape
// per event for one whose every event differs.
const SHAPES_PER_STREAM = 4;

/**
 * `"model":"<id>"` as bytes, made once per id and shared by every stream (ids come from the
 * configuration, so there are few); each of 10,000 open streams made its own before.
 */
function modelField(id: string): Buffer {
  let field = modelFields.get(id);
  if (field === undefined) modelFields.set(id, (field = Buffer.from(`"model":${JSON.stringify(id)}`)));
  return field;
}

export class StreamEventFilter implements StreamFilter {
  /** The upstream's model id as a JSON string, when it is to be replaced. */
  readonly #upstreamModel: string | null;
  readonly #modelReplacement: Buffer;
  /** Where the last model value found ends in its event. */
  #modelEnd = -1;
  readonly #forwardUsage: boolean;
  usage: StreamUsage | null = null;
  /** Content and tool-argument deltas seen: the completion-token estimate when the stream ends without usage. */
  contentEvents = 0;
  /** A choice finished: the completion is whole. */
  finished = false;
  /** The upstream's [DONE] was passed on (it is held back while nothing has finished). */
  doneRelayed = false;
  /** Why the bytes are not an event stream; the stream is then abandoned. */
  broken: string | null = null;
  upstreamError: ApiError | null = null;
  #shape: EventShape | null = null;
  #shapesLeft = SHAPES_PER_STREAM;

  constructor(options: { upstreamModel: string; publicModel: string; forwardUsage: boolean }) {
    const { upstreamModel, publicModel } = options;
    this.#upstreamModel = upstreamModel === publicModel ? null : JSON.stringify(upstreamModel);
    this.#modelReplacement = modelField(publicModel);
    this.#forwardUsage = options.forwardUsage;
  }

  /** An upstream that ends without [DONE] (some servers omit it) still gets a well-formed end. */
  closingEvents(): string {
    return this.doneRelayed ? '' : DONE_FRAME;
  }

  failureEvents(error: ApiError): string {
    return errorEvents(error);
  }

  /**
   * Adds to `out` the bytes to send for this event, in order; nothing when it is dropped. `text`
   * is the event read as latin1 (see SseEventSplitter): the keys are looked for in it.
   */
  filter(event: Buffer, text: string, out: ByteBatch): void {
    const shape = this.#shape;
    if (shape !== null && shape.fits(text)) {
      this.contentEvents++;
      return this.#add(event, shape.modelAt, shape.modelEnd, out);
    }
    const dataAt = text.startsWith(DATA) ? 0 : text.indexOf(DATA);
    if (!sseLines(text, dataAt === 0)) {
      this.broken = 'The model server sent bytes that are not server-sent events mid-stream.';
      return;
    }
    if (dataAt === -1) return out.add(event); // a comment or a field we do not interpret
    let payloadAt = dataAt + DATA.length;
    if (text.charCodeAt(payloadAt) === SPACE) payloadAt++;
    if (text.startsWith(DONE, payloadAt)) {
      if (!this.finished) return;
      this.doneRelayed = true;
      return out.add(event);
    }
    if (text.startsWith(ERROR_START, payloadAt)) return out.add(this.#replaceError(event, payloadAt));
    const modelAt = this.#upstreamModel === null ? -1 : this.#findModel(text, payloadAt, this.#upstreamModel);
    // The other keys usually follow the model: looked for from there first.
    const after = modelAt === -1 ? payloadAt : this.#modelEnd;
    const finishes = !this.finished && finishesIn(text, after, payloadAt);
    if (finishes) this.finished = true;
    const usageAt = keyIn(text, USAGE, after, payloadAt);
    if (usageAt !== -1 && text.charCodeAt(valueAt(text, usageAt + USAGE.length + 1)) === OPEN_BRACE) {
      const onlyUsage = this.#readUsage(event, payloadAt);
      if (onlyUsage && !this.#forwardUsage) return;
    } else {
      let textAt = textValueAt(text, CONTENT, after, payloadAt);
      if (textAt === -1) textAt = textValueAt(text, ARGUMENTS, after, payloadAt);
      if (textAt !== -1) {
        this.contentEvents++;
        if (this.#shapesLeft > 0 && !finishes && (modelAt === -1 || this.#modelEnd <= textAt)) this.#learn(event, text, textAt, modelAt);
      }
    }
    this.#add(event, modelAt, this.#modelEnd, out);
  }

  /** The event, with the model from `modelAt` to `modelEnd` replaced unless `modelAt` is -1. */
  #add(event: Buffer, modelAt: number, modelEnd: number, out: ByteBatch): void {
    if (modelAt === -1) return out.add(event);
    out.add(event, 0, modelAt);
    out.add(this.#modelReplacement);
    out.add(event, modelEnd);
  }

  #learn(event: Buffer, text: string, valueAt: number, modelAt: number): void {
    const shape = EventShape.learn(event, text, valueAt, modelAt, modelAt === -1 ? -1 : this.#modelEnd);
    if (shape === null) return;
    this.#shape = shape;
    this.#shapesLeft--;
  }

  /** The first `"model"` key whose value is the upstream's id: where it begins, and #modelEnd set. */
  #findModel(text: string, from: number, upstreamModel: string): number {
    for (let at = firstKey(text, MODEL, from); at !== -1; at = firstKey(text, MODEL, at + MODEL.length)) {
      const value = valueAt(text, at + MODEL.length + 1);
      if (text.startsWith(upstreamModel, value)) {
        this.#modelEnd = value + upstreamModel.length;
        return at;
      }
    }
    return -1;
  }

  /** Records usage; true when the chunk carries nothing else (no choices). */
  #readUsage(event: Buffer, payloadAt: number): boolean {
    try {
      const chunk = JSON.parse(event.toString('utf8', payloadAt)) as { usage?: Record<string, unknown>; choices?: unknown[] };
      const promptTokens = Number(chunk.usage?.prompt_tokens);
      const completionTokens = Number(chunk.usage?.completion_tokens);
      if (Number.isFinite(promptTokens) && Number.isFinite(completionTokens)) {
        const details = chunk.usage?.prompt_tokens_details as Record<string, unknown> | null | undefined;
        this.usage = { promptTokens, completionTokens, cachedPromptTokens: countOr0(details?.['cached_tokens']) };
      }
      return Array.isArray(chunk.choices) && chunk.choices.length === 0;
    } catch {
      return false;
    }
  }

  #replaceError(event: Buffer, payloadAt: number): Buffer {
    let detail = '';
    try {
      const message = (JSON.parse(event.toString('utf8', payloadAt)) as { error?: { message?: unknown } }).error?.message;
      if (typeof message === 'string') detail = `: ${message.slice(0, 500)}`;
    } catch {
      // keep the generic message
    }
    this.upstreamError = new ApiError('upstream_error', { message: `The model server failed mid-stream${detail}` });
    return Buffer.from(`data: ${JSON.stringify(this.upstreamError)}\n\n`);
  }

}

/**
 * Where a key named by `tail` (its name without the opening quote, whose first letter is rarer
 * in JSON than a quote) begins in `text`: its opening quote, or -1. The first one from `after`,
 * else the first one from `from` (before `after`).
 */
function keyIn(text: string, tail: string, after: number, from: number): number {
  const found = firstKey(text, tail, after);
  return found !== -1 || after === from ? found : firstKey(text, tail, from);
}

/** The first key named by `tail` from `from`: its opening quote, or -1. */
function firstKey(text: string, tail: string, from: number): number {
  for (let at = text.indexOf(tail, from + 1); at !== -1; at = text.indexOf(tail, at + 1)) {
    if (text.charCodeAt(at - 1) !== QUOTE) continue;
    let after = at + tail.length;
    while (text.charCodeAt(after) === SPACE) after++;
    if (text.charCodeAt(after) === COLON) return at - 1;
  }
  return -1;
}

/** The event has a `finish_reason` key (found as keyIn finds it) whose value is a string. */
function finishesIn(text: string, after: number, from: number): boolean {
  const at = keyIn(text, FINISH_REASON, after, from);
  return at !== -1 && text.charCodeAt(valueAt(text, at + FINISH_REASON.length + 1)) === QUOTE;
}

/** Where the non-empty string value of the key named by `tail` (found as keyIn finds it) opens, or -1. */
function textValueAt(text: string, tail: string, after: number, from: number): number {
  const at = keyIn(text, tail, after, from);
  if (at === -1) return -1;
  const value = valueAt(text, at + tail.length + 1);
  return text.charCodeAt(value) === QUOTE && text.charCodeAt(value + 1) !== QUOTE ? value : -1;
}

/** Where the value begins of the key whose name ends at `at`: past the colon and any spaces. */
function valueAt(text: string, at: number): number {
  while (text.charCodeAt(at) === SPACE) at++;
  at++; // the colon
  while (text.charCodeAt(at) === SPACE) at++;
  return at;
}
