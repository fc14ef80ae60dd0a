// The environment variables `munja serve` reads, for `munja help serve`. docs/configuration.md
// describes each at length; a test keeps this list, that table and what src/config reads in step.

export interface EnvironmentSetting {
  readonly name: string;
  readonly fallback: string;
  readonly purpose: string;
}

export const ENVIRONMENT_SETTINGS: readonly EnvironmentSetting[] = [
  { name: 'PORT', fallback: '8080', purpose: 'port to listen on (0: a free one)' },
  { name: 'HOST', fallback: '127.0.0.1', purpose: 'address to listen on (0.0.0.0: every interface)' },
  { name: 'MUNJA_DATA', fallback: 'data/', purpose: 'data dir: the SQLite store and the first key file' },
  { name: 'REDIS_URL', fallback: 'none', purpose: 'keep accounts, keys, usage and limits in Redis (redis://, rediss://, +sentinel, +cluster)' },
  { name: 'MUNJA_WORKERS', fallback: '1, or the cores with REDIS_URL', purpose: 'worker processes serving the port' },
  { name: 'MUNJA_CONFIG', fallback: 'none', purpose: 'path of a JSON config file (models, limits, server)' },
  { name: 'LOG_LEVEL', fallback: 'info', purpose: 'fatal, error, warn, info, debug, trace or silent' },
  { name: 'MUNJA_UPSTREAM_URL', fallback: 'none', purpose: 'serve every model id from this OpenAI-compatible base URL (…/v1)' },
  { name: 'MUNJA_UPSTREAM_KEY', fallback: 'none', purpose: 'bearer key for that server' },
  { name: 'MUNJA_UPSTREAM_MODEL', fallback: 'the public id', purpose: 'model name to send to that server' },
  { name: 'MUNJA_TLS_CERT', fallback: 'none', purpose: 'PEM certificate: the port then serves HTTPS only' },
  { name: 'MUNJA_TLS_KEY', fallback: 'none', purpose: 'its PEM private key' },
  { name: 'MUNJA_TLS_KEY_PASSPHRASE', fallback: 'none', purpose: 'passphrase of an encrypted key' },
  { name: 'MUNJA_METRICS_PORT', fallback: '9464', purpose: 'Prometheus listener port (0: a free one; off: none)' },
  { name: 'MUNJA_METRICS_HOST', fallback: '127.0.0.1', purpose: 'address of that listener (no authentication: keep it private)' },
  { name: 'MUNJA_SMTP_URL', fallback: 'none', purpose: 'smtp:// or smtps:// mail server for email sign-up' },
  { name: 'MUNJA_MAIL_FROM', fallback: 'none', purpose: 'From address of that mail' },
  { name: 'MUNJA_INSECURE_COOKIES', fallback: '0', purpose: '1: the dashboard cookie works over plain HTTP off localhost (development only)' },
  { name: 'MUNJA_RESPONSES_TTL_SECONDS', fallback: '2592000, 30 days', purpose: 'how long a stored response is kept (or responses.ttlSeconds)' },
  { name: 'MUNJA_RESPONSES_MAX_STORED_BYTES', fallback: '268435456, 256 MiB', purpose: 'stored response bytes one account may hold (or responses.maxStoredBytesPerAccount)' },
  { name: 'MUNJA_CACHE_MAX_BYTES', fallback: '268435456, 256 MiB', purpose: 'response-cache bytes this process holds (0: no cache; or cache.maxBytes)' },
  { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', fallback: 'none', purpose: 'turns tracing on: spans go to this OTLP/HTTP endpoint' },
];
