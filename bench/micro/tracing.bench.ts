// Per-request cost of the tracing hooks (observability/request-trace.ts) as a chat completion
// relayed to an upstream calls them: off (ctx.trace is null: what every request pays by default),
// on but not sampled, and on and sampled (spans handed to a processor that drops them, so the
// export's own cost, off the request path in the batch processor, is left out).
// Run: node bench/micro/tracing.bench.ts   (a few seconds; prints a markdown table)
import { cpus } from 'node:os';
import { NoopSpanProcessor } from '@opentelemetry/sdk-trace';
import type { TracingConfig, UpstreamConfig } from '../../src/config/config-types.ts';
import type { RequestContext } from '../../src/http/request-context.ts';
import type { HttpRequest } from '../../src/http/uws.ts';
import { Tracing } from '../../src/observability/tracing.ts';
import { type Timing, timeSync, timingTable } from './timing.ts';

const CONFIG: TracingConfig = {
  endpoint: 'http://127.0.0.1:4318/v1/traces', headers: {}, timeoutMs: 10_000, compression: 'none',
  sampler: 'always_on', samplerRatio: 1, serviceName: 'munja', resourceAttributes: {},
  batch: { scheduleDelayMs: 5_000, maxQueueSize: 2_048, maxExportBatchSize: 512, exportTimeoutMs: 30_000 }, captureContent: false,
};
const UPSTREAM = { origin: 'http://127.0.0.1:8000', model: 'mock-model' } as unknown as UpstreamConfig;
const NO_HEADERS = { getHeader: () => '' } as unknown as HttpRequest;
const WITH_PARENT = { getHeader: (name: string) => (name === 'traceparent' ? '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' : '') } as unknown as HttpRequest;

/** The fields the hooks read, as a finished chat completion leaves them. */
function context(): RequestContext {
  return {
    method: 'POST', path: '/v1/chat/completions', route: '/v1/chat/completions', requestId: 'req_0', status: 200, aborted: false, finished: true,
    errorCode: null, keyId: 'key_abc', model: 'fast', stream: false, promptTokens: 18, completionTokens: 64, firstEventMs: null, trace: null,
  } as unknown as RequestContext;
}

/** What the gateway does with a traced chat completion relayed upstream, hook by hook. */
function request(tracing: Tracing | null, req: HttpRequest): void {
  const ctx = context();
  if (tracing !== null) ctx.trace = tracing.begin(ctx, req);
  const { trace } = ctx;
  trace?.enter('munja.auth');
  trace?.leave();
  trace?.enter('munja.rate_limit');
  trace?.leave({ 'munja.rate_limit.allowed': true, 'munja.rate_limit.reserved_tokens': 100 });
  trace?.served('fast');
  trace?.enter('munja.dispatch');
  if (trace != null) {
    const span = trace.upstream(UPSTREAM, false, {});
    span?.responseStarted(200);
    span?.completion({ model: 'mock-model', choices: [{ finish_reason: 'stop' }] });
    span?.end({ promptTokens: 18, completionTokens: 64 }, null);
  }
  trace?.leave();
  trace?.finish(ctx);
}

const sampled = new Tracing(CONFIG, null, new NoopSpanProcessor());
const unsampled = new Tracing({ ...CONFIG, sampler: 'traceidratio', samplerRatio: 0 }, null, new NoopSpanProcessor());
const timings: Timing[] = [
  await timeSync('tracing off: the hooks with ctx.trace null', () => request(null, NO_HEADERS)),
  await timeSync('tracing on, not sampled: traceparent for the upstream only', () => request(unsampled, NO_HEADERS)),
  await timeSync('tracing on, sampled: 5 spans (server, 3 phases, upstream client)', () => request(sampled, NO_HEADERS)),
  await timeSync('tracing on, sampled, under a client traceparent', () => request(sampled, WITH_PARENT)),
];
process.stdout.write(`# Munja tracing hooks per request (${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'})\n\n${timingTable(timings)}\n`);
