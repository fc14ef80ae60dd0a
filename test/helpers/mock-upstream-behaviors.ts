// What the mock upstream does with one POST /v1/chat/completions, scripted per request or by default.
import {
  chunkFactory,
  completionBody,
  DONE_FRAME,
  errorBody,
  sseFrame,
  streamErrorFrame,
  type UpstreamErrorStatus,
  usageOf,
} from './mock-upstream-vllm.ts';
import { runStructuredReply, wantsStructuredReply } from './mock-upstream-tools.ts';

/** How a stream's content chunks look and how fast they come. */
export interface StreamShape {
  /** Delay between chunks. */
  readonly paceMs?: number;
  /** Delay between sending the headers and the first chunk. */
  readonly firstDelayMs?: number;
  /** Content of every content chunk; default `w1 `, `w2 `, … */
  readonly chunkText?: string;
  /** Pads each chunk's content with `x` to this many characters (for backpressure tests). */
  readonly chunkBytes?: number;
  /** Adds `"usage": null` to choice chunks under include_usage, as OpenAI and older vLLM do; current vLLM omits it. */
  readonly nullUsage?: boolean;
  readonly promptTokens?: number;
}

export type Behavior =
  | {
      readonly kind: 'json';
      readonly text?: string;
      readonly promptTokens?: number;
      /** Default: the number of words in `text`. */
      readonly completionTokens?: number;
      readonly delayMs?: number;
    }
  | ({ readonly kind: 'stream'; readonly chunks: number } & StreamShape)
  /** After N content chunks, vLLM's in-stream error event then [DONE]. */
  | ({ readonly kind: 'fail-mid-stream'; readonly afterChunks: number; readonly message?: string } & StreamShape)
  /** Destroys the socket with a RST: before any header, or after N content chunks of a stream. */
  | ({ readonly kind: 'reset'; readonly afterChunks?: number } & StreamShape)
  /** Never answers, or stops after N content chunks; holds the connection until the client or close() ends it. */
  | ({ readonly kind: 'hang'; readonly afterChunks?: number } & StreamShape)
  | { readonly kind: 'status'; readonly status: UpstreamErrorStatus; readonly message?: string; readonly retryAfter?: string }
  /** 200, content-type application/json, a body that is not JSON. */
  | { readonly kind: 'garbage' }
  /** A tool call or JSON content, from the request's tools and response_format (mock-upstream-tools.ts). */
  | { readonly kind: 'structured' };

const KINDS = new Set<string>(['json', 'stream', 'fail-mid-stream', 'reset', 'hang', 'status', 'garbage', 'structured']);
const SCRIPT_PREFIX = 'mock:';
const DEFAULT_PROMPT_TOKENS = 10;

/** The response side of one exchange, as the server wires it: every write is guarded and counted. */
export interface Channel {
  isOpen(): boolean;
  /** Resolves when the connection is gone (client close, reset, or mock close). */
  readonly closed: Promise<void>;
  /** Resolves after `ms`, or early when the connection closes. */
  pause(ms: number): Promise<void>;
  sendJson(status: number, body: object | string, headers?: Record<string, string>): void;
  startEventStream(): void;
  /** Writes one SSE frame, waiting for 'drain' when the socket is full; false once the connection is gone. */
  writeFrame(frame: string): Promise<boolean>;
  end(): void;
  reset(): void;
}

export interface ChatRequestBody {
  readonly model?: unknown;
  readonly stream?: unknown;
  readonly stream_options?: { readonly include_usage?: unknown };
  readonly messages?: unknown;
}

/** `mock:{json}` in the last message's string content scripts the request; else the default applies. */
export function scriptedBehavior(body: ChatRequestBody): Behavior | { error: string } | undefined {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const content: unknown = messages.at(-1)?.content;
  if (typeof content !== 'string' || !content.startsWith(SCRIPT_PREFIX)) return undefined;
  return parseBehavior(content.slice(SCRIPT_PREFIX.length));
}

/** A behaviour written as JSON (`{"kind":"stream","chunks":20}`), or what is wrong with it. */
export function parseBehavior(text: string): Behavior | { error: string } {
  try {
    const behavior = JSON.parse(text) as Behavior;
    if (!KINDS.has(behavior?.kind)) return { error: `mock: unknown behaviour kind ${JSON.stringify(behavior?.kind)}; the kinds: ${[...KINDS].join(', ')}` };
    return behavior;
  } catch (error) {
    return { error: `mock: behaviour is not JSON: ${(error as Error).message}` };
  }
}

/** What a real server would do: call tools or answer in JSON when asked to, stream when asked to. */
export function naturalBehavior(body: ChatRequestBody): Behavior {
  if (wantsStructuredReply(body)) return { kind: 'structured' };
  return body.stream === true ? { kind: 'stream', chunks: 3 } : { kind: 'json' };
}

export async function runBehavior(behavior: Behavior, body: ChatRequestBody, channel: Channel, requestId: string): Promise<void> {
  const model = typeof body.model === 'string' ? body.model : 'unknown';
  const headers = { 'x-request-id': requestId };
  switch (behavior.kind) {
    case 'json': {
      await channel.pause(behavior.delayMs ?? 0);
      const text = behavior.text ?? 'Hello from the mock upstream.';
      const completionTokens = behavior.completionTokens ?? text.split(/\s+/).filter(Boolean).length;
      const usage = usageOf(behavior.promptTokens ?? DEFAULT_PROMPT_TOKENS, completionTokens);
      channel.sendJson(200, completionBody(model, text, usage), headers);
      return;
    }
    case 'status': {
      const message = behavior.message ?? `mock upstream error ${behavior.status}`;
      const errorHeaders: Record<string, string> = { ...headers };
      if (behavior.retryAfter !== undefined) errorHeaders['retry-after'] = behavior.retryAfter;
      channel.sendJson(behavior.status, errorBody(behavior.status, message), errorHeaders);
      return;
    }
    case 'structured':
      return runStructuredReply(body, channel, headers);
    case 'garbage':
      channel.sendJson(200, '{"id":"chatcmpl-truncated","object":"chat.compl', headers);
      return;
    case 'reset':
    case 'hang':
      if (behavior.afterChunks === undefined) return behavior.kind === 'reset' ? channel.reset() : channel.closed;
      if (!(await streamChunks(behavior, behavior.afterChunks, body, model, channel))) return;
      return behavior.kind === 'reset' ? channel.reset() : channel.closed;
    case 'fail-mid-stream':
      if (!(await streamChunks(behavior, behavior.afterChunks, body, model, channel))) return;
      if (!(await channel.writeFrame(streamErrorFrame(behavior.message ?? 'mock upstream failed mid-stream')))) return;
      if (await channel.writeFrame(DONE_FRAME)) channel.end();
      return;
    case 'stream': {
      const chunks = await streamChunks(behavior, behavior.chunks, body, model, channel);
      if (!chunks) return;
      if (!(await channel.writeFrame(sseFrame(chunks.finish())))) return;
      const usage = usageOf(behavior.promptTokens ?? DEFAULT_PROMPT_TOKENS, behavior.chunks);
      if (includesUsage(body) && !(await channel.writeFrame(sseFrame(chunks.usage(usage))))) return;
      if (await channel.writeFrame(DONE_FRAME)) channel.end();
      return;
    }
  }
}

function includesUsage(body: ChatRequestBody): boolean {
  return body.stream_options?.include_usage === true;
}

type ChunkFactory = ReturnType<typeof chunkFactory>;

/** Headers, the role chunk, then `count` content chunks; undefined once the connection is gone. */
async function streamChunks(
  shape: StreamShape,
  count: number,
  body: ChatRequestBody,
  model: string,
  channel: Channel,
): Promise<ChunkFactory | undefined> {
  const chunks = chunkFactory(model, includesUsage(body), shape.nullUsage ?? false);
  channel.startEventStream();
  await channel.pause(shape.firstDelayMs ?? 0);
  if (!(await channel.writeFrame(sseFrame(chunks.role())))) return undefined;
  for (let index = 1; index <= count; index++) {
    await channel.pause(shape.paceMs ?? 0);
    const text = (shape.chunkText ?? `w${index} `).padEnd(shape.chunkBytes ?? 0, 'x');
    if (!(await channel.writeFrame(sseFrame(chunks.content(text))))) return undefined;
  }
  return chunks;
}
