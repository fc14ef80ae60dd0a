// The deployment files agree with docs/operations.md and with Munja's own defaults.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SERVER } from '../../../src/config/default-config.ts';
import { metricsFrom } from '../../../src/config/metrics-config.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const operations = readFileSync(`${ROOT}/docs/operations.md`, 'utf8');
const compose = readFileSync(`${ROOT}/compose.yaml`, 'utf8');
const dockerfile = readFileSync(`${ROOT}/Dockerfile`, 'utf8');
const dockerignore = readFileSync(`${ROOT}/.dockerignore`, 'utf8').split('\n').map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));
const shutdownSeconds = (DEFAULT_SERVER.drainDelayMs + DEFAULT_SERVER.shutdownGraceMs) / 1000;

describe('compose.yaml', () => {
  it('is the one docs/operations.md shows', () => {
    expect(operations).toContain(`\`\`\`yaml\n${compose}\`\`\``);
  });

  it('lets an instance drain before Docker kills it', () => {
    const grace = /^\s+stop_grace_period: (\d+)s$/m.exec(compose);
    expect(grace).not.toBeNull();
    expect(Number(grace![1])).toBeGreaterThan(shutdownSeconds);
  });
});

it('the docker run of docs/operations.md gives a stop timeout above drain + grace', () => {
  const timeout = /^docker run --stop-timeout (\d+) /m.exec(operations);
  expect(timeout).not.toBeNull();
  expect(Number(timeout![1])).toBeGreaterThan(shutdownSeconds);
});

describe('safe as shipped', () => {
  it('the image keeps the unauthenticated metrics listener on loopback', () => {
    expect(dockerfile).not.toMatch(/MUNJA_METRICS_HOST=(?!127\.0\.0\.1)[^.]/);
    expect(dockerfile).not.toMatch(/^EXPOSE .*9464/m);
    expect(metricsFrom({})?.host).toBe('127.0.0.1');
  });

  it('compose runs Redis with a password the instances use', () => {
    expect(compose).toMatch(/"redis-server", "--requirepass", "\$\{REDIS_PASSWORD:\?[^}]*\}"/);
    expect(compose).toMatch(/REDIS_URL: redis:\/\/:\$\{REDIS_PASSWORD:\?[^}]*\}@redis:6379/);
  });

  it('compose publishes every port on the host\'s loopback only', () => {
    const published = [...compose.matchAll(/^\s+ports: \[(.*)\]$/gm)].flatMap((m) => m[1]!.split(',').map((p) => p.trim()));
    expect(published.length).toBeGreaterThan(0);
    for (const port of published) expect(port).toMatch(/^"127\.0\.0\.1:\d+:\d+"$/);
  });

  it('the build context leaves out dependencies, data, history and secrets', () => {
    for (const entry of ['node_modules', 'data', '.git', '.env']) expect(dockerignore).toContain(entry);
  });

  it('the build context still holds everything the Dockerfile copies', () => {
    const sources = [...dockerfile.matchAll(/^COPY (?!--from)(.*) \S+$/gm)].flatMap((m) => m[1]!.split(/\s+/));
    expect(sources).toContain('src');
    for (const source of sources) expect(dockerignore).not.toContain(source);
  });
});
