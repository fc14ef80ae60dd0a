// The request line: pino's shape, every field, escaping of what a client controls, keys masked,
// and its level (faults at error, a readiness probe answered 503 while starting at info).
import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../../src/http/request-context.ts';
import { LogLines } from '../../../src/observability/log-lines.ts';
import { RequestLog } from '../../../src/observability/request-log.ts';

function contextOf(fields: Partial<Record<keyof RequestContext, unknown>> = {}): RequestContext {
  return {
    requestId: 'req_1', method: 'POST', path: '/v1/chat/completions', route: '/v1/chat/completions', clientAddress: '127.0.0.1',
    status: 200, errorCode: null, aborted: false, finished: true, keyId: 'key_1', model: 'default', stream: false,
    promptTokens: 12, completionTokens: 34, firstByteMs: null, queuedMs: null, elapsedMs: () => 1.23456, trace: null, ...fields,
  } as unknown as RequestContext;
}

function lineOf(ctx: RequestContext, minLevel = 30): Record<string, unknown> | undefined {
  const written: string[] = [];
  new RequestLog(new LogLines((region) => written.push(region.toString('utf8')), { eachLine: true }), minLevel, 4242).write(ctx);
  expect(written.length).toBeLessThanOrEqual(1);
  if (written.length === 0) return undefined;
  expect(written[0]!.endsWith('}\n')).toBe(true);
  return JSON.parse(written[0]!) as Record<string, unknown>;
}

describe('the request log line', () => {
  it('has pino’s shape and every field of the request', () => {
    const line = lineOf(contextOf())!;
    expect(typeof line.time).toBe('number');
    expect({ ...line, time: 0 }).toEqual({
      level: 30, time: 0, pid: 4242, reqId: 'req_1', method: 'POST', path: '/v1/chat/completions', route: '/v1/chat/completions',
      clientAddress: '127.0.0.1', status: 200, outcome: 'ok', keyId: 'key_1', model: 'default', stream: false, promptTokens: 12,
      completionTokens: 34, durationMs: 1.23, firstByteMs: null, errorCode: null, clientClosed: false, msg: 'request',
    });
    expect(Object.keys(line).slice(0, 3)).toEqual(['level', 'time', 'pid']);
  });

  it('gives the time spent in the admission queue, in ms, after the duration, when the request waited', () => {
    const line = lineOf(contextOf({ queuedMs: 1234.5678 }))!;
    expect(line.queueMs).toBe(1234.57);
    expect(Object.keys(line).indexOf('queueMs')).toBe(Object.keys(line).indexOf('durationMs') + 1);
    expect(lineOf(contextOf())).not.toHaveProperty('queueMs');
  });

  it('escapes what a client sends (quotes, control characters, any script) and masks keys in it', () => {
    const path = '/v1/"odd"\\path\n\u0001čćž-模型-🙂';
    const line = lineOf(contextOf({ path, model: 'sk_munja_0123456789abcdefghijXYZW "m"', method: 'P"OST', clientAddress: '::1"' }))!;
    expect(line.path).toBe(path);
    expect(line.model).toBe('sk_munja_…XYZW "m"');
    expect(line.method).toBe('P"OST');
    expect(line.clientAddress).toBe('::1"');
  });

  it('writes every number as JSON would: zero, many digits, fractions, negatives', () => {
    for (const value of [0, 7, 10, 1_234_567_890_123, 2 ** 53 + 2, 0.5, -3, 1e21]) {
      const line = lineOf(contextOf({ promptTokens: value, completionTokens: value, firstByteMs: value }))!;
      expect(line).toMatchObject({ promptTokens: value, completionTokens: value, firstByteMs: value });
    }
    expect(Math.abs((lineOf(contextOf())!.time as number) - Date.now())).toBeLessThan(5_000);
  });

  it('writes null for an absent key, model, error and a number that is not finite', () => {
    const line = lineOf(contextOf({ keyId: null, model: null, promptTokens: Number.NaN, firstByteMs: 5.5, errorCode: 'x' }))!;
    expect(line).toMatchObject({ keyId: null, model: null, promptTokens: null, firstByteMs: 5.5, errorCode: 'x' });
  });

  it('joins the line to its trace when the request is traced', () => {
    const line = lineOf(contextOf({ trace: { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) } }))!;
    expect(line).toMatchObject({ trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16), msg: 'request' });
  });

  it('logs /readyz answering 503 not_ready (starting, draining) at info, other 5xx at error, the rest at info', () => {
    expect(lineOf(contextOf({ status: 503, errorCode: 'not_ready', path: '/readyz' }))!.level).toBe(30);
    expect(lineOf(contextOf({ status: 503, errorCode: 'overloaded' }))!.level).toBe(50);
    expect(lineOf(contextOf({ status: 502, errorCode: 'upstream_error' }))!.level).toBe(50);
    expect(lineOf(contextOf({ status: 429, errorCode: 'rate_limit_exceeded' }))!.level).toBe(30);
  });

  it('writes nothing below the logger’s level, and faults still at warn', () => {
    expect(lineOf(contextOf(), 40)).toBeUndefined();
    expect(lineOf(contextOf({ status: 500, errorCode: 'internal_error' }), 40)!.level).toBe(50);
    expect(lineOf(contextOf({ status: 500, errorCode: 'internal_error' }), Number.POSITIVE_INFINITY)).toBeUndefined();
  });
});
