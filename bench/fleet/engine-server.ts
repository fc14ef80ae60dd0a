// A fleet of simulated vLLM-like engines (engine-model.ts says what is modelled and what is not),
// each on its own port in this one process: POST /v1/chat/completions answered as an OpenAI chat
// stream (or JSON), whose tokens come at the engine's steps, and GET /metrics with vLLM's names
// (vllm:num_requests_waiting, vllm:num_requests_running, vllm:kv_cache_usage_perc and the prefix
// cache's vllm:prefix_cache_queries / vllm:prefix_cache_hits in tokens). The prompt is the
// messages' roles and contents, one line each; each reply token is 4 characters.
//   node bench/fleet/engine-server.ts [--engines 4]     prints {"ports":[…]}; SIGTERM exits
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { EngineModel, type SimRequest, VLLM_LIKE } from './engine-model.ts';

const MAX_BODY_BYTES = 8 * 2 ** 20;
const MODEL_NAME = 'sim';

/** The reply's token at `index`: always 4 characters. */
export const replyToken = (index: number) => ` w${(index % 90) + 10}`;

/** The prompt an engine sees: one line per message. */
export function promptOf(messages: readonly { role?: unknown; content?: unknown }[]): string {
  let prompt = '';
  for (const message of messages) prompt += `${String(message.role)}: ${typeof message.content === 'string' ? message.content : JSON.stringify(message.content)}\n`;
  return prompt;
}

/** Runs the model's steps on a timer, each due when the previous one's time is up (lag does not accumulate). */
class StepLoop {
  readonly #model: EngineModel;
  #busy = false;
  #due = 0;

  constructor(model: EngineModel) {
    this.#model = model;
  }

  kick(): void {
    if (!this.#busy) this.#run();
  }

  #run(): void {
    const ms = this.#model.beginStep();
    if (ms === null) {
      this.#busy = false;
      return;
    }
    const now = performance.now();
    if (!this.#busy) this.#due = now;
    this.#busy = true;
    this.#due += ms;
    setTimeout(() => {
      this.#model.endStep();
      this.#run();
    }, Math.max(0, this.#due - now));
  }
}

export function metricsText(model: EngineModel): string {
  const labels = `{engine="0",model_name="${MODEL_NAME}"}`;
  const gauge = (name: string, help: string, value: number) => `# HELP ${name} ${help}\n# TYPE ${name} gauge\n${name}${labels} ${value}\n`;
  const counter = (name: string, help: string, value: number) => `# HELP ${name}_total ${help}\n# TYPE ${name}_total counter\n${name}_total${labels} ${value}\n`;
  return gauge('vllm:num_requests_running', 'Number of requests in model execution batches.', model.running)
    + gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', model.waiting)
    + gauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', model.kvCacheUsage)
    + counter('vllm:prefix_cache_queries', 'Prefix cache queries, in terms of number of queried tokens.', model.prefilledTokens + model.cachedPromptTokens)
    + counter('vllm:prefix_cache_hits', 'Prefix cache hits, in terms of number of cached tokens.', model.cachedPromptTokens);
}

function fail(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', code: null } }));
}

interface ChatBody {
  messages?: unknown;
  max_tokens?: unknown;
  max_completion_tokens?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown } | null;
}

function complete(model: EngineModel, loop: StepLoop, body: ChatBody, res: ServerResponse): void {
  if (!Array.isArray(body.messages) || body.messages.length === 0) return fail(res, 400, 'messages must be a non-empty array');
  const maxTokens = Number(body.max_completion_tokens ?? body.max_tokens ?? 16);
  if (!Number.isInteger(maxTokens) || maxTokens < 1) return fail(res, 400, 'max_tokens must be a positive integer');
  const stream = body.stream === true;
  const includeUsage = body.stream_options?.include_usage === true;
  const id = `chatcmpl-sim-${Math.random().toString(36).slice(2)}`;
  const created = Math.floor(Date.now() / 1000);
  const head = `{"id":"${id}","object":"chat.completion.chunk","created":${created},"model":"${MODEL_NAME}","choices":[{"index":0,"delta":{`;
  let text = '';
  let request: SimRequest;
  try {
    request = model.submit(promptOf(body.messages as { role?: unknown; content?: unknown }[]), maxTokens, {
      token(index) {
        const piece = replyToken(index);
        if (!stream) text += piece;
        else res.write(`data: ${head}${index === 0 ? '"role":"assistant",' : ''}"content":"${piece}"},"logprobs":null,"finish_reason":null}]}\n\n`);
      },
      done(promptTokens, cachedTokens) {
        const usage = `{"prompt_tokens":${promptTokens},"completion_tokens":${maxTokens},"total_tokens":${promptTokens + maxTokens},"prompt_tokens_details":{"cached_tokens":${cachedTokens}}}`;
        if (stream) {
          res.end(`data: ${head}},"logprobs":null,"finish_reason":"length"}]}\n\n${includeUsage ? `data: {"id":"${id}","object":"chat.completion.chunk","created":${created},"model":"${MODEL_NAME}","choices":[],"usage":${usage}}\n\n` : ''}data: [DONE]\n\n`);
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(`{"id":"${id}","object":"chat.completion","created":${created},"model":"${MODEL_NAME}","choices":[{"index":0,"message":{"role":"assistant","content":"${text}"},"finish_reason":"length"}],"usage":${usage}}`);
        }
      },
    });
  } catch (error) {
    return fail(res, 400, (error as Error).message);
  }
  if (stream) res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.on('close', () => {
    if (!res.writableFinished) model.cancel(request);
  });
  loop.kick();
}

function readBody(req: IncomingMessage, res: ServerResponse, then: (body: ChatBody) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  req.on('end', () => {
    if (size > MAX_BODY_BYTES) return fail(res, 413, 'request body too large');
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return fail(res, 400, 'the body is not JSON');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return fail(res, 400, 'the body must be a JSON object');
    then(body as ChatBody);
  });
}

/** One engine's HTTP server (not yet listening). */
export function createEngineServer(model: EngineModel): Server {
  const loop = new StepLoop(model);
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      return void res.end(metricsText(model));
    }
    if (req.method === 'GET' && path === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(`{"object":"list","data":[{"id":"${MODEL_NAME}","object":"model","owned_by":"sim"}]}`);
    }
    if (req.method === 'POST' && path === '/v1/chat/completions') return readBody(req, res, (body) => complete(model, loop, body, res));
    fail(res, 404, `no route for ${req.method} ${path}`);
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { engines: { type: 'string', default: '4' } } });
  const count = Number(values.engines);
  if (!Number.isInteger(count) || count < 1) throw new Error('--engines must be a positive integer');
  const servers: Server[] = [];
  const ports: number[] = [];
  for (let index = 0; index < count; index++) {
    const server = createEngineServer(new EngineModel(VLLM_LIKE));
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    ports.push((server.address() as AddressInfo).port);
  }
  process.once('SIGTERM', () => {
    for (const server of servers) server.closeAllConnections();
    process.exit(0);
  });
  process.stdout.write(`${JSON.stringify({ ports })}\n`);
}

if (import.meta.main) {
  main().catch((error: unknown) => {
    process.stderr.write(`engine-server: ${(error as Error).message}\n`);
    process.exitCode = 1;
  });
}
