// The bench's mock upstream: an OpenAI/vLLM-shaped POST /v1/chat/completions on uWebSockets.js,
// fast enough that it is never what limits a run (the test mock, on node:http, tops out far below
// what a proxy on its own core can pass). Everything is decided by the `model` string, the one
// field every proxy under test forwards untouched (one peer drops unknown headers and body fields):
//   mock                      JSON reply (~60 words), or with "stream": true a 100-chunk stream
//   mock;chunks=50;pace=10    stream of 50 content chunks, 10 ms apart
//   mock;stamp=1              each content chunk is `t<ns>`: process.hrtime when it was written
//                             (CLOCK_MONOTONIC, shared by all processes), for delivery latency
// pace=0 (the default) writes each chunk on its own turn of the event loop, so a proxy sees separate
// packets as from a real model server, not one burst. The reply echoes the model string, as vLLM does.
//   node bench/mock/fast-upstream.ts [--port 0]     prints {"port":N}; SIGTERM prints totals and exits
import { parseArgs } from 'node:util';
import { type HttpResponse, uws } from '../../src/http/uws.ts';
import { REPLY_TEXT } from './reply.ts';

interface Knobs {
  readonly chunks: number;
  readonly paceMs: number;
  readonly stamp: boolean;
  /** Pre-serialised pieces of this model's bodies. */
  readonly jsonHead: string;
  readonly jsonTail: string;
  readonly chunkHead: string;
  readonly chunkTail: string;
  readonly finish: string;
  readonly usage: string;
}

const DONE = 'data: [DONE]\n\n';
const PROMPT_TOKENS = 24;
const REPLY_TOKENS = REPLY_TEXT.split(' ').length;
const knobsByModel = new Map<string, Knobs>();
const totals = { requests: 0, streams: 0, aborted: 0, badRequests: 0 };
let nextId = 0;

function knobsOf(model: string): Knobs {
  let knobs = knobsByModel.get(model);
  if (knobs !== undefined) return knobs;
  const settings = new Map(model.split(';').slice(1).map((part) => part.split('=') as [string, string]));
  const chunks = Number(settings.get('chunks') ?? 100);
  const created = Math.floor(Date.now() / 1000);
  const name = JSON.stringify(model);
  const usage = (completion: number) => `{"prompt_tokens":${PROMPT_TOKENS},"total_tokens":${PROMPT_TOKENS + completion},"completion_tokens":${completion}}`;
  knobs = {
    chunks,
    paceMs: Number(settings.get('pace') ?? 0),
    stamp: settings.get('stamp') === '1',
    jsonHead: '{"id":"chatcmpl-',
    jsonTail: `","object":"chat.completion","created":${created},"model":${name},"choices":[{"index":0,"message":{"role":"assistant","content":${JSON.stringify(REPLY_TEXT)},"refusal":null,"tool_calls":[],"reasoning_content":null},"logprobs":null,"finish_reason":"stop","stop_reason":null}],"usage":${usage(REPLY_TOKENS)},"prompt_logprobs":null}`,
    chunkHead: `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":${created},"model":${name},"choices":[{"index":0,"delta":{"content":"`,
    chunkTail: '"},"logprobs":null,"finish_reason":null}]}\n\n',
    finish: `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":${created},"model":${name},"choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"stop","stop_reason":null}]}\n\n`,
    usage: `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":${created},"model":${name},"choices":[],"usage":${usage(chunks)}}\n\n`,
  };
  knobsByModel.set(model, knobs);
  return knobs;
}

interface Stream {
  readonly res: HttpResponse;
  readonly knobs: Knobs;
  readonly includeUsage: boolean;
  sent: number;
  open: boolean;
}

// Unpaced streams advance one chunk per turn, all of them from one setImmediate.
let turn: Stream[] = [];
let turnScheduled = false;

function scheduleTurn(stream: Stream): void {
  turn.push(stream);
  if (!turnScheduled) {
    turnScheduled = true;
    setImmediate(runTurn);
  }
}

function runTurn(): void {
  const streams = turn;
  turn = [];
  turnScheduled = false;
  for (const stream of streams) step(stream);
}

/** Writes the next chunk (or the end) of a stream and schedules the one after. */
function step(stream: Stream): void {
  if (!stream.open) return;
  const { res, knobs } = stream;
  res.cork(() => {
    if (stream.sent < knobs.chunks) {
      const text = knobs.stamp ? `t${process.hrtime.bigint()}` : ` w${stream.sent + 1}`;
      res.write(knobs.chunkHead + text + knobs.chunkTail);
      stream.sent++;
      return;
    }
    stream.open = false;
    res.end(knobs.finish + (stream.includeUsage ? knobs.usage : '') + DONE);
  });
  if (!stream.open) return;
  if (knobs.paceMs > 0) setTimeout(step, knobs.paceMs, stream);
  else scheduleTurn(stream);
}

interface ChatBody {
  model?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown } | null;
}

function answer(res: HttpResponse, body: Buffer, onAbort: { stream?: Stream }): void {
  let parsed: ChatBody;
  try {
    parsed = JSON.parse(body.toString('utf8')) as ChatBody;
  } catch {
    parsed = {};
  }
  if (typeof parsed.model !== 'string') {
    totals.badRequests++;
    res.cork(() => res.writeStatus('400 Bad Request').writeHeader('content-type', 'application/json').end('{"error":{"message":"model must be a string","type":"BadRequestError","param":null,"code":400}}'));
    return;
  }
  const knobs = knobsOf(parsed.model);
  if (parsed.stream !== true) {
    res.cork(() => res.writeHeader('content-type', 'application/json').end(knobs.jsonHead + (nextId++).toString(16) + knobs.jsonTail));
    return;
  }
  totals.streams++;
  const stream: Stream = { res, knobs, includeUsage: parsed.stream_options?.include_usage === true, sent: 0, open: true };
  onAbort.stream = stream;
  res.cork(() => {
    res.writeHeader('content-type', 'text/event-stream').writeHeader('cache-control', 'no-cache');
    res.write(`${knobs.chunkHead}${knobs.chunkTail.replace('"},', '","role":"assistant"},')}`);
  });
  if (knobs.paceMs > 0) setTimeout(step, knobs.paceMs, stream);
  else step(stream);
}

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } } });
const app = uws.App();
app.post('/v1/chat/completions', (res) => {
  totals.requests++;
  const state: { stream?: Stream; aborted: boolean } = { aborted: false };
  res.onAborted(() => {
    state.aborted = true;
    totals.aborted++;
    if (state.stream !== undefined) state.stream.open = false;
  });
  const pieces: Buffer[] = [];
  res.onData((chunk, isLast) => {
    // uWS reuses the ArrayBuffer: copy it.
    pieces.push(Buffer.from(chunk.slice(0)));
    if (isLast && !state.aborted) answer(res, pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces), state);
  });
});
app.get('/v1/models', (res) => {
  res.cork(() => res.writeHeader('content-type', 'application/json').end('{"object":"list","data":[{"id":"mock","object":"model","owned_by":"bench"}]}'));
});
app.any('/*', (res) => {
  res.cork(() => res.writeStatus('404 Not Found').end());
});

app.listen('127.0.0.1', Number(values.port), (socket) => {
  if (socket === false) {
    process.stderr.write(`fast-upstream: cannot listen on port ${values.port}\n`);
    process.exit(1);
  }
  process.stdout.write(`${JSON.stringify({ port: uws.us_socket_local_port(socket) })}\n`);
  const stop = () => {
    uws.us_listen_socket_close(socket);
    process.stdout.write(`${JSON.stringify(totals)}\n`);
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
});
