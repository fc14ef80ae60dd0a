// What Claude Code sends on its defaults (`claude -p` with ANTHROPIC_BASE_URL, recorded in
// test/fixtures/agent-clients/), replayed byte for byte against the built-in engine with a Munja
// key in place of the redacted one: accepted, and answered with a well-formed Message stream whose
// tool calls name offered tools with valid input; the tool result sent back gets a text answer.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMessageStream } from '../helpers/anthropic-sse.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { expectValid } from '../helpers/schema-validator.ts';

interface Capture {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: any;
}

const FIXTURES = new URL('../fixtures/agent-clients/', import.meta.url);
const CAPTURES: Array<[string, Capture]> = ['claude-code-p-api-key.json', 'claude-code-p-auth-token.json'].map((file) => [
  file,
  JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8')).requests[0],
]);
/** Headers a client's HTTP stack sets for its connection, not for the API. */
const TRANSPORT = new Set(['host', 'content-length', 'connection', 'accept-encoding']);
const REPLAYS = 6;

let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  gateway = await startGateway();
  ({ key } = await gateway.createKey());
});
afterAll(() => gateway.close());

function replay(capture: Capture, body: unknown = capture.body): Promise<Response> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(capture.headers)) {
    if (TRANSPORT.has(name)) continue;
    headers[name] = name === 'x-api-key' ? key : name === 'authorization' ? `Bearer ${key}` : value;
  }
  return fetch(`${gateway.origin}${capture.path}`, { method: 'POST', headers, body: JSON.stringify(body) });
}

describe.each(CAPTURES)('Claude Code: %s', (_file, capture) => {
  it('is the request the endpoint must take (?beta=true, the key, 32,000 or 4,096 max_tokens, thinking, deferred tools)', () => {
    expect(capture.path).toBe('/v1/messages?beta=true');
    expect(capture.body.stream).toBe(true);
    expect(capture.body.model).toBe('fast');
    expect(capture.body.tools.some((tool: any) => tool.defer_loading === true)).toBe(true);
  });

  it('gets a well-formed stream: text, or calls of offered tools with valid input', async () => {
    const offered = new Map<string, any>(capture.body.tools.filter((tool: any) => tool.defer_loading !== true).map((tool: any) => [tool.name, tool.input_schema]));
    for (let attempt = 0; attempt < REPLAYS; attempt++) {
      const response = await replay(capture);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(response.headers.get('request-id')).toMatch(/^req_/);
      const { message, error } = readMessageStream(await response.text());
      expect(error).toBeNull();
      expect(message.model).toBe('fast');
      expect(message.usage.input_tokens).toBeGreaterThan(1000);
      expect(message.content.length).toBeGreaterThan(0);
      if (message.stop_reason === 'tool_use') {
        for (const block of message.content) {
          expect(block.type).toBe('tool_use');
          expect(offered.has(block.name)).toBe(true);
          expectValid(offered.get(block.name), block.input);
        }
      } else {
        expect(message.stop_reason).toBe('end_turn');
        expect(message.content.map((block: any) => block.type)).toEqual(['text']);
      }
    }
  });

  it('completes the turn: the tool results sent back get a text answer', async () => {
    const call = { ...capture.body, tool_choice: { type: 'any' } };
    const { message } = readMessageStream(await (await replay(capture, call)).text());
    expect(message.stop_reason).toBe('tool_use');
    const results = message.content.map((block: any) => ({ type: 'tool_result', tool_use_id: block.id, content: 'Permission to use this tool was denied.', is_error: true }));
    const next = { ...capture.body, messages: [...capture.body.messages, { role: 'assistant', content: message.content }, { role: 'user', content: results }] };
    const response = await replay(capture, next);
    expect(response.status).toBe(200);
    const answer = readMessageStream(await response.text()).message;
    expect(answer.stop_reason).toBe('end_turn');
    expect(answer.content.map((block: any) => block.type)).toEqual(['text']);
    expect(answer.content[0].text.length).toBeGreaterThan(0);
  });

  it('takes the offer once tool search has loaded the deferred tools, one of them needing what the engine cannot generate', async () => {
    // After a ToolSearch call Claude Code offers the tools it found; a schema with `allOf` in a
    // required field is left uncalled rather than refusing the turn.
    const allOf = { name: 'PlanWithAllOf', description: 'x', input_schema: { type: 'object', properties: { plan: { allOf: [{ type: 'string' }, { minLength: 1 }] } }, required: ['plan'] } };
    const loaded = capture.body.tools.map(({ defer_loading: _deferred, ...tool }: any) => tool);
    for (const tool_choice of [undefined, { type: 'any' }]) {
      for (let attempt = 0; attempt < REPLAYS; attempt++) {
        const response = await replay(capture, { ...capture.body, tools: [...loaded, allOf], ...(tool_choice === undefined ? {} : { tool_choice }) });
        expect(response.status).toBe(200);
        const { message, error } = readMessageStream(await response.text());
        expect(error).toBeNull();
        for (const block of message.content) if (block.type === 'tool_use') expect(block.name).not.toBe(allOf.name);
      }
    }
    const forced = await replay(capture, { ...capture.body, tools: [...loaded, allOf], tool_choice: { type: 'tool', name: allOf.name } });
    expect(forced.status).toBe(400);
    // Named as the request has it: the tool's index among its tools, its input_schema.
    expect(await forced.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining(`allOf in tools.${loaded.length}.input_schema`) } });
  });
});
