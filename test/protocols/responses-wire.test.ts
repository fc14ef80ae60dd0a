// /v1/responses on the wire: the requests Codex CLI sends on its defaults, a relayed stream that
// breaks mid-way, and billing of a request that failed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { contentEvent, type ScriptedUpstream, startScriptedUpstream, stream } from '../helpers/scripted-upstream.ts';
import { parseNamedSse } from '../helpers/sse.ts';

interface RecordedRequest {
  readonly path: string;
  readonly body: Record<string, unknown>;
}

function recorded(name: string): RecordedRequest[] {
  return (JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/agent-clients', `${name}.json`), 'utf8')) as { requests: RecordedRequest[] }).requests;
}

let upstream: ScriptedUpstream;
let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  gateway = await startGateway({ ...FAST_TEST_CONFIG, models: { ...FAST_TEST_CONFIG.models, up: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up-model' }] } } });
  ({ key } = await gateway.createKey());
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

function post(body: unknown, withKey = key): Promise<Response> {
  return fetch(`${gateway.baseURL}/responses`, { method: 'POST', headers: { authorization: `Bearer ${withKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** The stream's events, each checked to name its type in both its `event:` line and its data. */
async function events(response: Response): Promise<Record<string, unknown>[]> {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return parseNamedSse(await response.text()).map((event) => {
    const data = JSON.parse(event.data) as Record<string, unknown>;
    expect(event.event).toBe(data['type']);
    return data;
  });
}

describe('what Codex CLI sends', () => {
  it.each(['codex-exec-default', 'codex-exec-tool-loop'])('%s completes each turn, its built-in tools left out and named', async (name) => {
    for (const request of recorded(name)) {
      const response = await post(request.body);
      const omitted = response.headers.get('x-munja-omitted-tools');
      const stream = await events(response);
      expect(stream.at(-1)?.['type']).toBe('response.completed');
      const final = stream.at(-1)?.['response'] as { output: { type: string }[]; usage: { input_tokens: number } };
      expect(final.output.length).toBeGreaterThan(0);
      expect(final.usage.input_tokens).toBeGreaterThan(0);
      const offered = (request.body['tools'] as { type: string }[]).filter((tool) => tool.type !== 'function').map((tool) => tool.type);
      expect(omitted?.split(', ').map((entry) => entry.split(':')[0]) ?? []).toEqual(offered);
    }
  });
});

describe('a relayed stream that breaks', () => {
  it('ends with response.failed when the model server stops mid-completion', async () => {
    upstream.answer = stream(contentEvent('Hello'), contentEvent(' there'));
    const stream_ = await events(await post({ model: 'up', input: 'Hi', stream: true, store: false }));
    const types = stream_.map((event) => event['type']);
    expect(types).toContain('response.output_text.delta');
    expect(types.at(-1)).toBe('response.failed');
    const failed = stream_.at(-1)?.['response'] as { status: string; error: { code: string; message: string } };
    expect(failed.status).toBe('failed');
    expect(failed.error.message).toMatch(/before the completion finished/);
  });

  it('answers an upstream failure before the stream in the API error shape', async () => {
    upstream.answer = (response) => {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end('{"error":{"message":"bad"}}');
    };
    const response = await post({ model: 'up', input: 'Hi', stream: true, store: false });
    expect(response.status).toBeGreaterThanOrEqual(400);
    const body = await response.json() as { error: { type: string; code: string } };
    expect(typeof body.error.code).toBe('string');
  });
});

describe('usage', () => {
  it('bills what a response reports, and nothing for a request that failed before it was served', async () => {
    const own = await gateway.createKey(); // usage of its own, untouched by the tests above
    const usageToday = async () => {
      const today = new Date().toISOString().slice(0, 10);
      const [row] = await gateway.app.store.usageByDay([own.id], today, today);
      return row ?? { requests: 0, promptTokens: 0, completionTokens: 0 };
    };
    const before = await usageToday();
    const response = await post({ model: 'fast', input: 'Say something.', store: false }, own.key);
    const body = await response.json() as { usage: { input_tokens: number; output_tokens: number } };
    // Usage is written once a second.
    await vi.waitFor(async () => expect((await usageToday()).requests).toBe(before.requests + 1), { timeout: 5_000 });
    const after = await usageToday();
    expect(after.promptTokens - before.promptTokens).toBe(body.usage.input_tokens);
    expect(after.completionTokens - before.completionTokens).toBe(body.usage.output_tokens);

    upstream.answer = (answer) => {
      answer.writeHead(500, { 'content-type': 'application/json' });
      answer.end('{"error":{"message":"boom"}}');
    };
    expect((await post({ model: 'up', input: 'Hi', store: false }, own.key)).status).toBeGreaterThanOrEqual(500);
    // A later success shows the usage writer has run since the failure: it added one request, not two.
    const later = await post({ model: 'fast', input: 'Hi', store: false }, own.key);
    expect(later.status, await later.text()).toBe(200);
    await vi.waitFor(async () => expect((await usageToday()).requests).toBe(after.requests + 1), { timeout: 5_000 });
  });
});
