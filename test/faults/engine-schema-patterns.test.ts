// Client schemas cannot freeze the local engine or page the operator, on the default settings:
// patterns run in linear time, what RE2 cannot run is refused, and a schema whose values the engine
// cannot generate is the client's 400, not a 500.
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let key: string;
let logged = '';

beforeAll(async () => {
  const logs = new PassThrough();
  logs.on('data', (chunk: Buffer) => { logged += chunk.toString(); });
  gateway = await startGateway({}, { logTo: logs });
  ({ key } = await gateway.createKey());
});
afterAll(() => gateway.close());

const WORDS = '(?:relationship|organization|information|development)';
// The sample values (built from these four words) match the first branch at once; a real value
// sends a backtracking engine through ~4^20 paths of the second.
const CATASTROPHIC = `^(?:${WORDS}\\.|(?:.|.|.|.)*X)`;

function withEmailPattern(pattern: string, seed = 1): Record<string, unknown> {
  const schema = { type: 'object', properties: { email: { type: 'string', format: 'email', pattern } }, required: ['email'], additionalProperties: false };
  return { model: 'default', messages: [{ role: 'user', content: 'Who to write to?' }], seed, response_format: { type: 'json_schema', json_schema: { name: 'contact', schema } } };
}

async function post(body: Record<string, unknown>): Promise<{ status: number; code: string | undefined; param: string | undefined; body: Record<string, any>; requestId: string | null }> {
  const response = await fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, any>;
  return { status: response.status, code: json.error?.code, param: json.error?.param, body: json, requestId: response.headers.get('x-request-id') };
}

describe('client patterns on the local engine', () => {
  it('answers three catastrophic patterns at once with 400 while /health and a plain request are served', async () => {
    const hostile = [2, 3, 4].map((seed) => post(withEmailPattern(CATASTROPHIC, seed)));
    const plain = await post({ model: 'default', messages: [{ role: 'user', content: 'Hello' }] });
    expect(plain.status).toBe(200);
    expect((await fetch(`${gateway.origin}/health`)).status).toBe(200);
    for (const answer of await Promise.all(hostile)) {
      expect(answer.status).toBe(400);
      expect(answer.code).toBe('unsupported_parameter');
      expect(answer.param).toBe('response_format.json_schema.schema.properties.email.pattern');
    }
  });

  it('answers a catastrophic pattern in a tool\'s parameters with 400', async () => {
    const { response_format: format, ...rest } = withEmailPattern(CATASTROPHIC, 5);
    const parameters = (format as { json_schema: { schema: unknown } }).json_schema.schema;
    const answer = await post({ ...rest, tools: [{ type: 'function', function: { name: 'write_to', parameters } }], tool_choice: 'required' });
    expect(answer.status).toBe(400);
    expect(answer.code).toBe('unsupported_parameter');
    expect(answer.param).toBe('tools[0].function.parameters.properties.email.pattern');
  });

  it('refuses look-around and back-references with 400 naming the pattern', async () => {
    // Both match every email address, so only the engine's refusal makes them fail.
    for (const pattern of ['^(?=.*@)', '(.)\\1|@', '(?<!x)@']) {
      const answer = await post(withEmailPattern(pattern));
      expect(answer.status).toBe(400);
      expect(answer.code).toBe('unsupported_parameter');
      expect(answer.param).toBe('response_format.json_schema.schema.properties.email.pattern');
    }
  });

  it('answers 400, not 500, when the generated values do not match a pattern the samples matched, logged at info', async () => {
    const answer = await post(withEmailPattern(`^${WORDS}\\.${WORDS}@`));
    expect(answer.status).toBe(400);
    expect(answer.code).toBe('unsupported_parameter');
    expect(answer.param).toBe('response_format.json_schema.schema.properties.email.pattern');
    const id = answer.requestId;
    expect(id).toBeTruthy();
    await vi.waitFor(() => expect(logged).toContain(`"${id}"`));
    const line = logged.split('\n').find((candidate) => candidate.includes(`"${id}"`))!;
    expect(JSON.parse(line)).toMatchObject({ level: 30, status: 400, errorCode: 'unsupported_parameter' });
  });

  it('keeps ECMA-262 patterns with the u flag that RE2 runs', async () => {
    for (const pattern of ['^[a-z]+\\.[a-z]+@example\\.com$', '^\\p{Ll}+\\.', '@(?<domain>[\\w.-]+)$', '\\u0040example', '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$']) {
      const answer = await post(withEmailPattern(pattern));
      expect(answer.status).toBe(200);
      const email = JSON.parse(answer.body.choices[0].message.content).email as string;
      expect(new RegExp(pattern, 'u').test(email)).toBe(true);
    }
  });
});
