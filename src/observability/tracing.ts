// OpenTelemetry traces: the SDK's tracer provider, sampler and batch processor, exported over
// OTLP/HTTP (protobuf), from the OTEL_* settings (config/tracing-config.ts). Created only when
// tracing is on; with it off nothing here is loaded into the request path (ctx.trace stays null).
//
// No global context manager: each request's spans hang off its own context, passed explicitly
// (RequestTrace). AsyncLocalStorage would tax every promise of every request while tracing is on.
import { diag, DiagLogLevel, ROOT_CONTEXT, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { TraceSampler, TracingConfig } from '../config/config-types.ts';
import type { RequestRecord } from './request-record.ts';
import { BUILD_VERSION } from './build-info.ts';
import type { Logger } from './logger.ts';
import { RequestTrace } from './request-trace.ts';

const TRACER_NAME = 'munja';

/** The incoming W3C headers, read as a TextMapGetter would. */
interface IncomingTraceHeaders {
  traceparent: string;
  tracestate: string;
}

const incomingGetter = {
  keys: () => ['traceparent', 'tracestate'],
  get: (carrier: IncomingTraceHeaders, key: string) => (key === 'traceparent' ? carrier.traceparent : key === 'tracestate' ? carrier.tracestate : undefined) || undefined,
};

export class Tracing {
  readonly tracer: Tracer;
  readonly propagator = new W3CTraceContextPropagator();
  /** Prompts and completions go on spans only when the operator opted in. */
  readonly captureContent: boolean;
  readonly #provider: TracerProvider;

  /**
   * `processor` replaces the OTLP export (tests give the SDK's in-memory exporter). The SDK's own
   * warnings (an export that failed, spans dropped from a full queue) go to `logger`.
   */
  constructor(config: TracingConfig, logger: Logger | null, processor: SpanProcessor = otlpProcessor(config)) {
    this.captureContent = config.captureContent;
    if (logger !== null) reportSdkProblems(logger);
    this.#provider = new TracerProvider({
      resource: resourceFromAttributes({
        ...config.resourceAttributes,
        'service.name': config.serviceName,
        'service.version': BUILD_VERSION,
        'process.pid': process.pid,
      }),
      sampler: samplerOf(config.sampler, config.samplerRatio),
      spanProcessors: [processor],
    });
    this.tracer = this.#provider.getTracer(TRACER_NAME, BUILD_VERSION);
  }

  /** The request's span, a child of the client's traceparent when it sent a valid one. Call in the uWS handler. */
  begin(ctx: RequestRecord, req: { getHeader(name: string): string }): RequestTrace {
    const headers = { traceparent: req.getHeader('traceparent'), tracestate: req.getHeader('tracestate') };
    const parent = headers.traceparent === '' ? ROOT_CONTEXT : this.propagator.extract(ROOT_CONTEXT, headers, incomingGetter);
    return new RequestTrace(this, ctx, parent);
  }

  /** Exports what is buffered and stops. */
  async shutdown(): Promise<void> {
    await this.#provider.shutdown();
  }
}

function reportSdkProblems(logger: Logger): void {
  const log = (level: 'error' | 'warn') => (message: string, ...args: unknown[]) => logger[level]({ detail: args.map(String).join(' ').slice(0, 500) }, `tracing: ${message}`);
  const ignore = () => {};
  diag.setLogger({ error: log('error'), warn: log('warn'), info: ignore, debug: ignore, verbose: ignore }, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
}

function otlpProcessor(config: TracingConfig): SpanProcessor {
  const exporter = new OTLPTraceExporter({
    url: config.endpoint,
    headers: { ...config.headers },
    timeoutMillis: config.timeoutMs,
    compression: config.compression as never, // the SDK's CompressionAlgorithm enum has these values
  });
  const { batch } = config;
  return new BatchSpanProcessor({
    exporter,
    scheduledDelayMillis: batch.scheduleDelayMs,
    maxQueueSize: batch.maxQueueSize,
    maxExportBatchSize: Math.min(batch.maxExportBatchSize, batch.maxQueueSize),
    exportTimeoutMillis: batch.exportTimeoutMs,
  });
}

function samplerOf(name: TraceSampler, ratio: number): Sampler {
  switch (name) {
    case 'always_on': return new AlwaysOnSampler();
    case 'always_off': return new AlwaysOffSampler();
    case 'traceidratio': return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on': return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off': return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio': return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}
