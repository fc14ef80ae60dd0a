// Looks at each upstream SSE event as bytes and decides what the client gets: the event as is
// (usually), with `model` rewritten to the public id, our own error event instead of the
// upstream's, or nothing (the usage chunk we asked for on the client's behalf). Only the rare
// events that carry usage or an error are parsed as JSON. A rewritten event is handed on as three
// ranges (the upstream's bytes before and after the model, our id between), never copied here: a
// copy would come from Node's shared 8 KiB buffer pool, whose slabs live long enough to be
// promoted and are then freed only by a full collection.
// The keys it looks at ("model", "content", "usage") are found in one pass over the event's bytes,
// with or without spaces around the colon (Python's json.dumps writes `"model": "x"`): four
// Buffer.indexOf calls per event took 700-1,100 ns for a 219-byte chunk, the pass 540-700 ns.
import { ApiError } from '../errors/api-error.ts';
import type { ByteBatch } from '../streaming/byte-batch.ts';

export interface StreamUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

const DATA = Buffer.from('data:');
const DONE = Buffer.from('[DONE]');
const ERROR_KEY = Buffer.from('"error":');
const MODEL_NAME = Buffer.from('"model"');
const USAGE_NAME = Buffer.from('"usage"');
const CONTENT_NAME = Buffer.from('"content"');
const ARGUMENTS_NAME = Buffer.from('"arguments"');
const [QUOTE, COLON, SPACE, OPEN_BRACE] = [34, 58, 32, 123];

const modelFields = new Map<string, Buffer>();
const modelValues = new Map<string, Buffer>();

/**
 * `"model":"<id>"` and `"<id>"` as bytes, made once per id and shared by every stream (ids come
 * from the configuration, so there are few); each of 10,000 open streams made its own before.
 */
function modelField(id: string): Buffer {
  let field = modelFields.get(id);
  if (field === undefined) modelFields.set(id, (field = Buffer.from(`"model":${JSON.stringify(id)}`)));
  return field;
}

function modelValue(id: string): Buffer {
  let value = modelValues.get(id);
  if (value === undefined) modelValues.set(id, (value = Buffer.from(JSON.stringify(id))));
  return value;
}

export class StreamEventFilter {
  /** The upstream's model id as a JSON string, when it is to be replaced. */
  readonly #upstreamModel: Buffer | null;
  readonly #modelReplacement: Buffer;
  // What the last scan found: each key's opening quote (-1 when absent) and the model value's end.
  #modelAt = -1;
  #modelEnd = -1;
  #usageAt = -1;
  #contentAt = -1;
  #argumentsAt = -1;
  readonly #forwardUsage: boolean;
  usage: StreamUsage | null = null;
  /** Content and tool-argument deltas seen: the completion-token estimate when the stream ends without usage. */
  contentEvents = 0;
  sawDone = false;
  upstreamError: ApiError | null = null;

  constructor(options: { upstreamModel: string; publicModel: string; forwardUsage: boolean }) {
    const { upstreamModel, publicModel } = options;
    this.#upstreamModel = upstreamModel === publicModel ? null : modelValue(upstreamModel);
    this.#modelReplacement = modelField(publicModel);
    this.#forwardUsage = options.forwardUsage;
  }

  /** Adds to `out` the bytes to send for this event, in order; nothing when it is dropped. */
  filter(event: Buffer, out: ByteBatch): void {
    const dataAt = bytesAt(event, 0, DATA) ? 0 : event.indexOf(DATA);
    if (dataAt === -1) return out.add(event); // a comment or a field we do not interpret
    let payloadAt = dataAt + DATA.length;
    if (event[payloadAt] === SPACE) payloadAt++;
    if (bytesAt(event, payloadAt, DONE)) {
      this.sawDone = true;
      return out.add(event);
    }
    if (this.#startsWithKey(event, payloadAt, ERROR_KEY)) return out.add(this.#replaceError(event, payloadAt));
    this.#scan(event, payloadAt);
    if (this.#usageAt !== -1 && event[valueAt(event, this.#usageAt + USAGE_NAME.length)] === OPEN_BRACE) {
      const onlyUsage = this.#readUsage(event, payloadAt);
      if (onlyUsage && !this.#forwardUsage) return;
    } else if (this.#contentAt !== -1 && isText(event, valueAt(event, this.#contentAt + CONTENT_NAME.length))) {
      this.contentEvents++;
    } else if (this.#argumentsAt !== -1 && isText(event, valueAt(event, this.#argumentsAt + ARGUMENTS_NAME.length))) {
      this.contentEvents++;
    }
    if (this.#modelAt === -1) return out.add(event);
    out.add(event, 0, this.#modelAt);
    out.add(this.#modelReplacement);
    out.add(event, this.#modelEnd);
  }

  /**
   * Finds the first `"usage"` and `"content"` keys, and a `"model"` key whose value is the
   * upstream's id (when it is to be replaced). A quote inside a JSON string is escaped, so a quote
   * that begins one of these names followed by a colon begins a key.
   */
  #scan(event: Buffer, from: number): void {
    const upstreamModel = this.#upstreamModel;
    let modelAt = -1;
    let usageAt = -1;
    let contentAt = -1;
    let argumentsAt = -1;
    for (let at = from; at < event.length; at++) {
      if (event[at] !== QUOTE) continue;
      const initial = event[at + 1];
      if (initial === 117 /* u */) {
        if (usageAt === -1 && isKey(event, at, USAGE_NAME)) usageAt = at;
      } else if (initial === 99 /* c */) {
        if (contentAt === -1 && isKey(event, at, CONTENT_NAME)) contentAt = at;
      } else if (initial === 97 /* a */) {
        if (argumentsAt === -1 && isKey(event, at, ARGUMENTS_NAME)) argumentsAt = at;
      } else if (initial === 109 /* m */ && modelAt === -1 && upstreamModel !== null && isKey(event, at, MODEL_NAME)) {
        const value = valueAt(event, at + MODEL_NAME.length);
        if (bytesAt(event, value, upstreamModel)) {
          modelAt = at;
          this.#modelEnd = value + upstreamModel.length;
        }
      }
    }
    this.#modelAt = modelAt;
    this.#usageAt = usageAt;
    this.#contentAt = contentAt;
    this.#argumentsAt = argumentsAt;
  }

  #startsWithKey(event: Buffer, payloadAt: number, key: Buffer): boolean {
    return event[payloadAt] === OPEN_BRACE && bytesAt(event, payloadAt + 1, key);
  }

  /** Records usage; true when the chunk carries nothing else (no choices). */
  #readUsage(event: Buffer, payloadAt: number): boolean {
    try {
      const chunk = JSON.parse(event.toString('utf8', payloadAt)) as { usage?: Record<string, unknown>; choices?: unknown[] };
      const promptTokens = Number(chunk.usage?.prompt_tokens);
      const completionTokens = Number(chunk.usage?.completion_tokens);
      if (Number.isFinite(promptTokens) && Number.isFinite(completionTokens)) this.usage = { promptTokens, completionTokens };
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

/** A non-empty string value begins at `at`. */
function isText(event: Buffer, at: number): boolean {
  return event[at] === QUOTE && event[at + 1] !== QUOTE;
}

/** `name` (with its quotes) at `at`, then a colon: a key. */
function isKey(event: Buffer, at: number, name: Buffer): boolean {
  if (!bytesAt(event, at, name)) return false;
  let after = at + name.length;
  while (event[after] === SPACE) after++;
  return event[after] === COLON;
}

/** Where the value begins of the key whose name ends at `at`: past the colon and any spaces. */
function valueAt(event: Buffer, at: number): number {
  while (event[at] === SPACE) at++;
  at++; // the colon
  while (event[at] === SPACE) at++;
  return at;
}

/** Whether `bytes` occurs in `event` at `at`: compared in place, where indexOf would scan the event. */
function bytesAt(event: Buffer, at: number, bytes: Buffer): boolean {
  if (at + bytes.length > event.length) return false;
  for (let i = 0; i < bytes.length; i++) if (event[at + i] !== bytes[i]) return false;
  return true;
}
