// The request line's level: faults at error, a readiness probe answered 503 while starting at info.
import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../../src/http/request-context.ts';
import type { Logger } from '../../../src/observability/logger.ts';
import { logRequest } from '../../../src/observability/request-log.ts';

function levelOf(status: number, errorCode: string | null, path = '/v1/chat/completions'): string {
  const levels: string[] = [];
  const logger = { info: () => levels.push('info'), error: () => levels.push('error') } as unknown as Logger;
  const ctx = {
    requestId: 'req_1', method: 'GET', path, status, errorCode, aborted: false, finished: true, keyId: null, model: null,
    stream: false, promptTokens: null, completionTokens: null, firstByteMs: null, elapsedMs: () => 1, trace: null, route: path,
  } as unknown as RequestContext;
  logRequest(logger, ctx);
  return levels.join();
}

describe('the request log line', () => {
  it('logs /readyz answering 503 not_ready (starting, draining) at info', () => {
    expect(levelOf(503, 'not_ready', '/readyz')).toBe('info');
  });

  it('logs other 5xx at error, and the rest at info', () => {
    expect(levelOf(503, 'overloaded')).toBe('error');
    expect(levelOf(502, 'upstream_error')).toBe('error');
    expect(levelOf(200, null)).toBe('info');
  });
});
