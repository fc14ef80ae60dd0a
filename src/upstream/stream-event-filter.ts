// Looks at each upstream SSE event as bytes and decides what the client gets: the event as is
// (usually), with `model` rewritten to the public id, our own error event instead of the
// upstream's, or nothing (the usage chunk we asked for on the client's behalf). Only the rare
// events that carry usage or an error are parsed as JSON. A rewritten event is handed on as three
// slices of the upstream's bytes, never copied: a copy would come from Node's shared 8 KiB buffer
// pool, whose slabs live long enough to be promoted and are then freed only by a full collection.
import { ApiError } from '../errors/api-error.ts';

export interface StreamUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

const DATA = Buffer.from('data:');
const DONE = Buffer.from('[DONE]');
const USAGE_KEY = Buffer.from('"usage":');
const ERROR_KEY = Buffer.from('"error":');
const CONTENT_KEY = Buffer.from('"content":"');

const modelFields = new Map<string, Buffer>();

/**
 * `"model":"<id>"` as bytes, made once per id and shared by every stream (ids come from the
 * configuration, so there are few); each of 10,000 open streams made its own two before.
 */
function modelField(id: string): Buffer {
  let field = modelFields.get(id);
  if (field === undefined) modelFields.set(id, (field = Buffer.from(`"model":${JSON.stringify(id)}`)));
  return field;
}

export class StreamEventFilter {
  readonly #modelPattern: Buffer | null;
  readonly #modelReplacement: Buffer;
  readonly #forwardUsage: boolean;
  usage: StreamUsage | null = null;
  /** Content deltas seen: the completion-token estimate when the stream ends without usage. */
  contentEvents = 0;
  sawDone = false;
  upstreamError: ApiError | null = null;

  constructor(options: { upstreamModel: string; publicModel: string; forwardUsage: boolean }) {
    const { upstreamModel, publicModel } = options;
    this.#modelPattern = upstreamModel === publicModel ? null : modelField(upstreamModel);
    this.#modelReplacement = modelField(publicModel);
    this.#forwardUsage = options.forwardUsage;
  }

  /** Appends to `out` the bytes to send for this event, in order; nothing when it is dropped. */
  filter(event: Buffer, out: Uint8Array[]): void {
    const dataAt = event.indexOf(DATA);
    if (dataAt === -1) return void out.push(event); // a comment or a field we do not interpret
    let payloadAt = dataAt + DATA.length;
    if (event[payloadAt] === 32) payloadAt++;
    if (bytesAt(event, payloadAt, DONE)) {
      this.sawDone = true;
      return void out.push(event);
    }
    if (this.#startsWithKey(event, payloadAt, ERROR_KEY)) return void out.push(this.#replaceError(event, payloadAt));
    const usageAt = event.indexOf(USAGE_KEY, payloadAt);
    if (usageAt !== -1 && this.#isObjectAt(event, usageAt + USAGE_KEY.length)) {
      const onlyUsage = this.#readUsage(event, payloadAt);
      if (onlyUsage && !this.#forwardUsage) return;
    } else {
      const contentAt = event.indexOf(CONTENT_KEY, payloadAt);
      if (contentAt !== -1 && event[contentAt + CONTENT_KEY.length] !== 34) this.contentEvents++;
    }
    this.#rewriteModel(event, out);
  }

  #startsWithKey(event: Buffer, payloadAt: number, key: Buffer): boolean {
    return event[payloadAt] === 123 && bytesAt(event, payloadAt + 1, key);
  }

  #isObjectAt(event: Buffer, at: number): boolean {
    while (event[at] === 32) at++;
    return event[at] === 123;
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

  #rewriteModel(event: Buffer, out: Uint8Array[]): void {
    const at = this.#modelPattern === null ? -1 : event.indexOf(this.#modelPattern);
    if (at === -1) return void out.push(event);
    out.push(event.subarray(0, at), this.#modelReplacement, event.subarray(at + this.#modelPattern!.length));
  }
}

/** Whether `bytes` occurs in `event` at `at`: compared in place, where indexOf would scan the event. */
function bytesAt(event: Buffer, at: number, bytes: Buffer): boolean {
  if (at + bytes.length > event.length) return false;
  for (let i = 0; i < bytes.length; i++) if (event[at + i] !== bytes[i]) return false;
  return true;
}
