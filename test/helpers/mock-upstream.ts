// A scripted stand-in for vLLM's OpenAI-compatible server (chat completions, and the Responses and
// Messages APIs), for upstream-relay tests and benchmarks.
// Each request runs a Behavior: the one scripted in its last message (`mock:{json}`), else the default.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import {
  type Behavior,
  type ChatRequestBody,
  naturalBehavior,
  runBehavior,
  scriptedBehavior,
} from './mock-upstream-behaviors.ts';
import { newRecord, openChannel, type RequestRecord, type SeenRequest } from './mock-upstream-channel.ts';
import { type NativeApi, nativeBehavior, runNativeBehavior } from './mock-upstream-native.ts';
import { errorBody, modelsBody, requestId, UNAUTHORIZED_BODY } from './mock-upstream-vllm.ts';

export type { Behavior, StreamShape } from './mock-upstream-behaviors.ts';
export type { SeenRequest } from './mock-upstream-channel.ts';
export type { UpstreamErrorStatus } from './mock-upstream-vllm.ts';

export interface MockUpstreamOptions {
  /** Behaviour for chat requests that script none; default: a 3-chunk stream when `stream: true`, else JSON. */
  readonly defaultBehavior?: Behavior;
  /** When set, /v1 requests with another bearer get vLLM's 401. */
  readonly apiKey?: string;
  /** Served model ids for GET /v1/models. */
  readonly models?: readonly string[];
  /** Default 0: any free port. */
  readonly port?: number;
  /** False keeps only counters, for long benchmark runs. */
  readonly keepRequests?: boolean;
  /**
   * GET /metrics at the root (vLLM's Prometheus page, see vllmMetricsText): the page, or a status to
   * fail with. Not counted among the requests. Unset: 404.
   */
  readonly metrics?: () => string | number;
  /** GET /slots (llama.cpp's slots, a JSON array): the page, or a status to fail with. Not counted among the requests. Unset: 404. */
  readonly slots?: () => string | number;
}

export interface MockUpstream {
  /** `http://127.0.0.1:PORT/v1` */
  readonly baseUrl: string;
  readonly port: number;
  readonly requests: readonly SeenRequest[];
  readonly totals: { readonly requests: number; readonly aborted: number };
  /** TCP connections: accepted in total, open now, most open at once. */
  readonly connections: { readonly opened: number; readonly open: number; readonly maxOpen: number };
  /** The default for following requests; undefined restores the natural default. */
  setBehavior(behavior: Behavior | undefined): void;
  /** Resolves once `predicate` holds, re-checked on every change the mock sees; rejects after `timeoutMs`. */
  waitFor(predicate: () => boolean, what: string | (() => string), timeoutMs?: number): Promise<void>;
  waitForRequests(count: number, timeoutMs?: number): Promise<readonly SeenRequest[]>;
  waitForAbort(count?: number, timeoutMs?: number): Promise<readonly SeenRequest[]>;
  /** Forgets requests, zeroes counters (open connections stay counted) and restores the default behaviour. */
  reset(): void;
  /** Stops listening and destroys every socket, ending hangs and streams. */
  close(): Promise<void>;
}

const DEFAULT_WAIT_MS = 5_000;
/** The other APIs it serves, as vLLM does. */
const NATIVE_PATHS = new Map<string, NativeApi>([['/v1/responses', 'responses'], ['/v1/messages', 'messages']]);
const MAX_MODEL_LEN = 32_768;

export async function startMockUpstream(options: MockUpstreamOptions = {}): Promise<MockUpstream> {
  const requests: RequestRecord[] = [];
  const totals = { requests: 0, aborted: 0 };
  const connections = { opened: 0, open: 0, maxOpen: 0 };
  const sockets = new Set<Socket>();
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of waiters) waiter();
  };
  let defaultBehavior = options.defaultBehavior;
  let closing = false;

  const server = createServer((req, res) => {
    serve(req, res).catch(() => res.destroy());
  });
  server.on('connection', (socket: Socket) => {
    connections.opened++;
    connections.open++;
    connections.maxOpen = Math.max(connections.maxOpen, connections.open);
    sockets.add(socket);
    socket.once('close', () => {
      connections.open--;
      sockets.delete(socket);
      notify();
    });
    notify();
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://mock').pathname;
    if (req.method === 'GET' && path === '/metrics' && options.metrics !== undefined) return sendMetrics(res, options.metrics());
    if (req.method === 'GET' && path === '/slots' && options.slots !== undefined) return sendMetrics(res, options.slots());
    const body = parseJson(raw);
    const record = newRecord(req, path, body, raw);
    totals.requests++;
    if (options.keepRequests !== false) requests.push(record);
    const channel = openChannel(req, res, record, {
      notify,
      onAbort: () => totals.aborted++,
      isClosing: () => closing,
    });
    notify();

    if (path.startsWith('/v1/') && options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return channel.sendJson(401, UNAUTHORIZED_BODY);
    }
    if (req.method === 'GET' && path === '/health') return channel.sendJson(200, '');
    if (req.method === 'GET' && path === '/v1/models') {
      return channel.sendJson(200, modelsBody(options.models ?? ['mock-model'], MAX_MODEL_LEN));
    }
    const native = NATIVE_PATHS.get(path);
    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && native === undefined)) return channel.sendJson(404, { detail: 'Not Found' });
    if (typeof body !== 'object' || body === null) return channel.sendJson(400, errorBody(400, 'mock: body is not a JSON object'));
    const incomingId = req.headers['x-request-id'];
    if (native !== undefined) {
      const behavior = nativeBehavior(body, defaultBehavior);
      if ('error' in behavior) return channel.sendJson(400, errorBody(400, behavior.error));
      record.behavior = behavior;
      notify();
      return runNativeBehavior(native, behavior, body, channel, typeof incomingId === 'string' ? incomingId : requestId());
    }

    const chat = body as ChatRequestBody;
    const scripted = scriptedBehavior(chat);
    if (scripted && 'error' in scripted) return channel.sendJson(400, errorBody(400, scripted.error));
    record.behavior = scripted ?? defaultBehavior ?? naturalBehavior(chat);
    notify();
    await runBehavior(record.behavior, chat, channel, typeof incomingId === 'string' ? incomingId : requestId());
  }

  function sendMetrics(res: ServerResponse, page: string | number): void {
    if (typeof page === 'number') res.writeHead(page).end();
    else res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(page);
  }

  function waitFor(predicate: () => boolean, what: string | (() => string), timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!predicate()) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        const description = typeof what === 'string' ? what : what();
        reject(new Error(`mock upstream: timed out after ${timeoutMs} ms waiting for ${description}`));
      }, timeoutMs);
      waiters.add(check);
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('mock upstream: no TCP address');

  return {
    baseUrl: `http://127.0.0.1:${address.port}/v1`,
    port: address.port,
    requests,
    totals,
    connections,
    setBehavior(behavior) {
      defaultBehavior = behavior;
    },
    waitFor,
    async waitForRequests(count, timeoutMs) {
      await waitFor(() => totals.requests >= count, () => `${count} requests (saw ${totals.requests})`, timeoutMs);
      return requests;
    },
    async waitForAbort(count = 1, timeoutMs) {
      await waitFor(() => totals.aborted >= count, () => `${count} aborted requests (saw ${totals.aborted})`, timeoutMs);
      return requests.filter((request) => request.aborted);
    },
    reset() {
      requests.length = 0;
      totals.requests = 0;
      totals.aborted = 0;
      connections.opened = connections.open;
      connections.maxOpen = connections.open;
      defaultBehavior = options.defaultBehavior;
    },
    async close() {
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      const socketsClosed = [...sockets].map((socket) => new Promise((resolve) => socket.once('close', resolve)));
      for (const socket of sockets) socket.destroy();
      await Promise.all([stopped, ...socketsClosed]);
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
