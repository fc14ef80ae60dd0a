import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import type { RequestContext } from '../../../src/http/request-context.ts';
import { createLogger } from '../../../src/observability/logger.ts';

function capture() {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _encoding, done) { lines.push(chunk.toString()); done(); } });
  return { lines, logger: createLogger('info', sink).logger };
}

// A finished request as the request line reads it.
function requestContext(requestId: string): RequestContext {
  return {
    requestId, method: 'POST', path: '/v1/chat/completions', route: '/v1/chat/completions', clientAddress: '127.0.0.1', status: 200,
    errorCode: null, aborted: false, finished: true, keyId: 'key_1', model: 'čćžšđ-模型-🙂', stream: false, promptTokens: 1,
    completionTokens: 1, firstByteMs: null, elapsedMs: () => 1, trace: null,
  } as unknown as RequestContext;
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

  it('writes every line whole and in order to a file descriptor, multi-byte text included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'munja-log-'));
    const fd = openSync(join(dir, 'out.log'), 'w');
    try {
      const { logger, requestLog, drain } = createLogger('info', fd);
      await nextTurn(); // the destination opens on the next turn
      const count = 3_000; // several batches
      for (let i = 0; i < count; i += 1) {
        if (i % 2 === 0) requestLog.write(requestContext(String(i)));
        else logger.info({ i: String(i) }, 'other');
      }
      await drain();
      const lines = readFileSync(join(dir, 'out.log'), 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line));
      expect(lines.map((line) => line.i ?? line.reqId)).toEqual(Array.from({ length: count }, (_, i) => String(i)));
      expect(lines.filter((line) => line.msg === 'request').every((line) => line.model === 'čćžšđ-模型-🙂')).toBe(true);
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps running when its destination fails, says so once, and holds at most 16 MiB of lines', async () => {
    const fd = openSync('/dev/full', 'w'); // every write fails with ENOSPC
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const { logger, flush } = createLogger('info', fd);
      await nextTurn();
      const buffersBefore = process.memoryUsage().arrayBuffers;
      const padding = 'x'.repeat(1000);
      for (let i = 0; i < 64 * 1024; i += 1) logger.info({ i, padding }, 'line'); // ~64 MiB
      const held = process.memoryUsage().arrayBuffers - buffersBefore;
      await sleep(250); // failed writes and a few timed flushes (every 100 ms)
      flush();
      expect(held).toBeLessThan(32 * 1024 * 1024);
      const reports = stderr.mock.calls.map(([text]) => String(text)).filter((text) => text.includes('log lines are being lost'));
      expect(reports).toHaveLength(1);
    } finally {
      stderr.mockRestore();
      closeSync(fd);
    }
  });
});
