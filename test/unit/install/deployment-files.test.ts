// The deployment files agree with the README and with Munja's own defaults.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SERVER } from '../../../src/config/default-config.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const readme = readFileSync(`${ROOT}/README.md`, 'utf8');
const compose = readFileSync(`${ROOT}/compose.yaml`, 'utf8');
const shutdownSeconds = (DEFAULT_SERVER.drainDelayMs + DEFAULT_SERVER.shutdownGraceMs) / 1000;

describe('compose.yaml', () => {
  it('is the one the README shows', () => {
    expect(readme).toContain(`\`\`\`yaml\n${compose}\`\`\``);
  });

  it('lets an instance drain before Docker kills it', () => {
    const grace = /^\s+stop_grace_period: (\d+)s$/m.exec(compose);
    expect(grace).not.toBeNull();
    expect(Number(grace![1])).toBeGreaterThan(shutdownSeconds);
  });
});

it('the README\'s docker run gives a stop timeout above drain + grace', () => {
  const timeout = /^docker run --stop-timeout (\d+) /m.exec(readme);
  expect(timeout).not.toBeNull();
  expect(Number(timeout![1])).toBeGreaterThan(shutdownSeconds);
});
