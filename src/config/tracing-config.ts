// OpenTelemetry traces from the standard OTEL_* variables (the SDK environment specification), read
// here so that the rest of the service never looks at the environment. Off unless an OTLP endpoint
// is set (or OTEL_TRACES_EXPORTER=otlp); OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turn
// it off. Only OTLP over HTTP with protobuf is exported.
import { ConfigError } from './config-error.ts';
import type { TraceSampler, TracingConfig } from './config-types.ts';
import type { Env } from './load-config.ts';

const DEFAULT_ENDPOINT = 'http://localhost:4318/v1/traces';
const SAMPLERS: readonly TraceSampler[] = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];

export function tracingFrom(env: Env): TracingConfig | null {
  if (flag(env, 'OTEL_SDK_DISABLED')) return null;
  const exporter = value(env, 'OTEL_TRACES_EXPORTER');
  const endpointSet = value(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') !== '' || value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') !== '';
  if (exporter === 'none' || (exporter === '' && !endpointSet)) return null;
  if (exporter !== '' && exporter !== 'otlp') throw new ConfigError(`OTEL_TRACES_EXPORTER must be "otlp" or "none", got "${exporter}"`);
  const protocol = value(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') || value(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') || 'http/protobuf';
  if (protocol !== 'http/protobuf') {
    throw new ConfigError(`OTEL_EXPORTER_OTLP_PROTOCOL: only "http/protobuf" is supported, got "${protocol}" (a collector accepts it on port 4318)`);
  }
  const sampler = (value(env, 'OTEL_TRACES_SAMPLER') || 'parentbased_always_on') as TraceSampler;
  if (!SAMPLERS.includes(sampler)) throw new ConfigError(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}, got "${sampler}"`);
  const resourceAttributes = pairs(env, 'OTEL_RESOURCE_ATTRIBUTES');
  return {
    endpoint: endpointOf(env),
    headers: { ...pairs(env, 'OTEL_EXPORTER_OTLP_HEADERS'), ...pairs(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS') },
    timeoutMs: integer(env, 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', integer(env, 'OTEL_EXPORTER_OTLP_TIMEOUT', 10_000)),
    compression: compressionOf(env),
    sampler,
    samplerRatio: ratioOf(env, sampler),
    serviceName: value(env, 'OTEL_SERVICE_NAME') || resourceAttributes['service.name'] || 'munja',
    resourceAttributes,
    batch: {
      scheduleDelayMs: integer(env, 'OTEL_BSP_SCHEDULE_DELAY', 5_000),
      maxQueueSize: integer(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2_048),
      maxExportBatchSize: integer(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512),
      exportTimeoutMs: integer(env, 'OTEL_BSP_EXPORT_TIMEOUT', 30_000),
    },
    captureContent: flag(env, 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT'),
  };
}

function value(env: Env, name: string): string {
  return env[name]?.trim() ?? '';
}

function flag(env: Env, name: string): boolean {
  const raw = value(env, name).toLowerCase();
  if (raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ConfigError(`${name} must be "true" or "false", got "${raw}"`);
}

function integer(env: Env, name: string, fallback: number): number {
  const raw = value(env, name);
  if (raw === '') return fallback;
  const parsed = Number(raw);
  if (!Number.isInteger(parsed) || parsed < 1) throw new ConfigError(`${name} must be a positive integer, got "${raw}"`);
  return parsed;
}

/** The traces endpoint as given, or the base endpoint with the signal's path appended. */
function endpointOf(env: Env): string {
  const traces = value(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const endpoint = traces || (base ? `${base.replace(/\/+$/, '')}/v1/traces` : DEFAULT_ENDPOINT);
  const name = traces ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new ConfigError(`${name} must be an http:// or https:// URL, got "${endpoint}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must be an http:// or https:// URL, got "${endpoint}"`);
  return endpoint;
}

function compressionOf(env: Env): 'gzip' | 'none' {
  const raw = value(env, 'OTEL_EXPORTER_OTLP_TRACES_COMPRESSION') || value(env, 'OTEL_EXPORTER_OTLP_COMPRESSION') || 'none';
  if (raw !== 'gzip' && raw !== 'none') throw new ConfigError(`OTEL_EXPORTER_OTLP_COMPRESSION must be "gzip" or "none", got "${raw}"`);
  return raw;
}

function ratioOf(env: Env, sampler: TraceSampler): number {
  const raw = value(env, 'OTEL_TRACES_SAMPLER_ARG');
  if (raw === '' || !sampler.endsWith('traceidratio')) return 1;
  const ratio = Number(raw);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got "${raw}"`);
  return ratio;
}

/** `key=value,key2=value2` with percent-encoded values (W3C Baggage octets), as the specification has it. */
function pairs(env: Env, name: string): Record<string, string> {
  const parsed: Record<string, string> = {};
  const raw = value(env, name);
  if (raw === '') return parsed;
  for (const entry of raw.split(',')) {
    const at = entry.indexOf('=');
    const key = at === -1 ? '' : entry.slice(0, at).trim();
    if (key === '') throw new ConfigError(`${name} must be a list of key=value pairs separated by commas`);
    try {
      parsed[key] = decodeURIComponent(entry.slice(at + 1).trim());
    } catch {
      throw new ConfigError(`${name}: the value of "${key}" is not valid percent-encoding`);
    }
  }
  return parsed;
}
