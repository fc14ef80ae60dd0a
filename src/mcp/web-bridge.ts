// uWS ↔ the SDK's web-standard transport: a fetch `Request` from what the RequestContext copied,
// and the transport's `Response` written back to uWS. An SSE body is piped chunk by chunk with
// backpressure (write() false → wait for onWritable); if the client goes away the body stream is
// cancelled, which ends the pipe.
import type { McpHeaders, RequestContext } from '../http/request-context.ts';
import { type Headers, send } from '../http/respond.ts';
import { SseWriter } from '../streaming/sse-writer.ts';

/** The Request the transport reads; the body is handed over already parsed, the key not at all. */
export function toWebRequest(ctx: RequestContext, mcp: McpHeaders): Request {
  const headers = new globalThis.Headers();
  if (ctx.contentType !== '') headers.set('content-type', ctx.contentType);
  if (mcp.accept !== '') headers.set('accept', mcp.accept);
  if (mcp.protocolVersion !== '') headers.set('mcp-protocol-version', mcp.protocolVersion);
  if (mcp.sessionId !== '') headers.set('mcp-session-id', mcp.sessionId);
  if (mcp.lastEventId !== '') headers.set('last-event-id', mcp.lastEventId);
  const base = mcp.host !== '' && URL.canParse(`http://${mcp.host}`) ? `http://${mcp.host}` : 'http://localhost';
  return new Request(new URL(ctx.path, base), { method: ctx.method, headers });
}

// uWS writes its own framing and connection headers; content-type goes through send/SseWriter.
const NOT_COPIED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-type']);

/** Writes the transport's response (plus `extra` headers); resolves when it has ended or the client left. */
export async function writeWebResponse(ctx: RequestContext, response: Response, extra: Headers): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!NOT_COPIED.has(name)) headers[name] = value;
  });
  Object.assign(headers, extra);
  const contentType = response.headers.get('content-type') ?? 'application/json';
  if (response.body !== null && contentType.startsWith('text/event-stream')) {
    await pipeEvents(ctx, response.body, headers);
    return;
  }
  const body = response.body === null ? '' : new Uint8Array(await response.arrayBuffer());
  send(ctx, response.status, body, headers, { contentType });
}

async function pipeEvents(ctx: RequestContext, body: ReadableStream<Uint8Array>, headers: Headers): Promise<void> {
  const reader = body.getReader();
  const writer = new SseWriter(ctx);
  let resume: (() => void) | null = null;
  ctx.onAbort = () => {
    reader.cancel().catch(() => {});
    resume?.();
  };
  // Headers go out at once: the first event may be a whole generation away.
  let writable = writer.open(headers);
  while (!writer.closed) {
    if (!writable) {
      await new Promise<void>((resolve) => {
        resume = resolve;
        writer.whenWritable(resolve);
      });
      resume = null;
      writable = true;
      continue;
    }
    const { done, value } = await reader.read();
    if (done) writer.end();
    else writable = writer.write(value);
  }
  // Releases the transport's stream (and its keep-alive timer) if the client left first.
  await reader.cancel().catch(() => {});
}
