import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/observability/logger.ts';

function capture() {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _encoding, done) { lines.push(chunk.toString()); done(); } });
  return { lines, logger: createLogger('info', sink).logger };
}

describe('logger', () => {
  it('redacts keys, authorization headers and cookies wherever they appear', () => {
    const { lines, logger } = capture();
    const secret = 'sk_munja_supersecretvalue';
    logger.info({ authorization: `Bearer ${secret}`, headers: { authorization: `Bearer ${secret}`, cookie: 'sid=1' }, upstream: { apiKey: secret }, key: secret }, 'x');
    const line = lines.join('');
    expect(line).not.toContain(secret);
    expect(line).not.toContain('sid=1');
    expect(JSON.parse(line).headers.authorization).toBe('[redacted]');
  });
});
