import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/config-error.ts';
import { tracingFrom } from '../../../src/config/tracing-config.ts';

describe('OTEL_* (traces)', () => {
  it('is off by default, and with an endpoint unless disabled', () => {
    expect(tracingFrom({})).toBeNull();
    expect(tracingFrom({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' })).toBeNull();
    expect(tracingFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBeNull();
    expect(tracingFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
  });

  it('takes the standard defaults', () => {
    expect(tracingFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      endpoint: 'http://collector:4318/v1/traces',
      headers: {},
      timeoutMs: 10_000,
      compression: 'none',
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
      serviceName: 'munja',
      resourceAttributes: {},
      batch: { scheduleDelayMs: 5_000, maxQueueSize: 2_048, maxExportBatchSize: 512, exportTimeoutMs: 30_000 },
      captureContent: false,
    });
    expect(tracingFrom({ OTEL_TRACES_EXPORTER: 'otlp' })?.endpoint).toBe('http://localhost:4318/v1/traces');
  });

  it('reads the signal-specific variables first, headers, the sampler, the resource and content capture', () => {
    const config = tracingFrom({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/otlp/v1/traces',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=a,authorization=Basic%20abc',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-tenant=b',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.01',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-resource,deployment.environment.name=prod',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'TRUE',
    })!;
    expect(config.endpoint).toBe('https://traces.example.com/otlp/v1/traces');
    expect(config.headers).toEqual({ 'x-tenant': 'b', authorization: 'Basic abc' });
    expect(config.timeoutMs).toBe(2000);
    expect(config.compression).toBe('gzip');
    expect([config.sampler, config.samplerRatio]).toEqual(['parentbased_traceidratio', 0.01]);
    expect(config.serviceName).toBe('from-resource');
    expect(config.resourceAttributes['deployment.environment.name']).toBe('prod');
    expect(config.captureContent).toBe(true);
    expect(tracingFrom({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SERVICE_NAME: 'edge', OTEL_RESOURCE_ATTRIBUTES: 'service.name=x' })?.serviceName).toBe('edge');
  });

  it('refuses what it cannot honour, naming the variable', () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    const bad: Array<Record<string, string>> = [
      { ...on, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      { ...on, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' },
      { ...on, OTEL_TRACES_EXPORTER: 'zipkin' },
      { ...on, OTEL_TRACES_SAMPLER: 'sometimes' },
      { ...on, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' },
      { ...on, OTEL_EXPORTER_OTLP_TIMEOUT: 'soon' },
      { ...on, OTEL_EXPORTER_OTLP_HEADERS: 'novalue' },
      { ...on, OTEL_EXPORTER_OTLP_COMPRESSION: 'brotli' },
      { ...on, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'yes' },
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' },
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://collector/v1/traces' },
    ];
    for (const env of bad) expect(() => tracingFrom(env), JSON.stringify(env)).toThrow(ConfigError);
  });
});
