// /mcp through the MCP SDK's own Client and StreamableHTTPClientTransport, against a running gateway.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type MockUpstream, startMockUpstream } from '../helpers/mock-upstream.ts';

let gateway: TestGateway;
let mock: MockUpstream;
let key: string;
const clients: Client[] = [];

beforeAll(async () => {
  mock = await startMockUpstream();
  gateway = await startGateway({ ...FAST_TEST_CONFIG, models: { ...FAST_TEST_CONFIG.models, relay: { upstreams: [{ baseUrl: mock.baseUrl }] } } });
  ({ key } = await gateway.createKey());
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
afterAll(async () => {
  await gateway.close();
  await mock.close();
});

async function connect(headers: Record<string, string> = { authorization: `Bearer ${key}` }): Promise<Client> {
  const client = new Client({ name: 'munja-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${gateway.origin}/mcp`), { requestInit: { headers } });
  clients.push(client);
  await client.connect(transport);
  return client;
}

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  const [first] = result.content;
  return first?.type === 'text' ? first.text : '';
}

describe('MCP over the SDK client', () => {
  it('initializes: server info, the tools capability and instructions', async () => {
    const client = await connect();
    expect(client.getServerVersion()).toMatchObject({ name: 'munja' });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toContain('chat_completion');
  });

  it('lists both tools with JSON Schemas; model is limited to what the key may use', async () => {
    const { tools } = await (await connect()).listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['chat_completion', 'list_models']);
    const chat = tools[0]!;
    expect(chat.description).toMatch(/prompt/);
    expect(chat.inputSchema.required).toEqual(['model']);
    expect((chat.inputSchema.properties!['model'] as { enum: string[] }).enum).toEqual(['auto', 'default', 'pro', 'fast', 'hrllm', 'relay']);
    expect(chat.outputSchema?.required).toEqual(['text', 'model', 'finish_reason', 'usage']);

    const scoped = await gateway.createKey({ models: ['fast', 'hrllm'] });
    const { tools: scopedTools } = await (await connect({ authorization: `Bearer ${scoped.key}` })).listTools();
    expect((scopedTools[0]!.inputSchema.properties!['model'] as { enum: string[] }).enum).toEqual(['fast', 'hrllm']);
  });

  it('list_models returns the ids, descriptions and limits this key may use', async () => {
    const client = await connect();
    await client.listTools();
    const all = await callTool(client, 'list_models', {});
    expect(all.isError).toBeFalsy();
    const models = (all.structuredContent as { models: Array<{ id: string; context_tokens: number }> }).models;
    expect(models.map((model) => model.id)).toEqual(['auto', 'default', 'pro', 'fast', 'hrllm', 'relay']);
    expect(models.every((model) => model.context_tokens > 0)).toBe(true);
    expect(textOf(all)).toContain('hrllm');

    const scoped = await gateway.createKey({ models: ['pro'] });
    const one = await callTool(await connect({ authorization: `Bearer ${scoped.key}` }), 'list_models', {});
    expect(one.structuredContent).toEqual({ models: [{ id: 'pro', description: '', context_tokens: 32768, max_output_tokens: 2048 }] });
  });

  it('chat_completion with a prompt returns the reply, and model, finish_reason and usage as structured content', async () => {
    const client = await connect();
    await client.listTools(); // so that the client checks the structured content against the output schema
    const result = await callTool(client, 'chat_completion', { model: 'fast', prompt: 'Hello!' });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { text: string; model: string; finish_reason: string; usage: Record<string, number> };
    expect(textOf(result).length).toBeGreaterThan(0);
    expect(structured.text).toBe(textOf(result));
    expect(structured.model).toBe('fast');
    expect(structured.finish_reason).toBe('stop');
    expect(structured.usage['total_tokens']).toBe(structured.usage['prompt_tokens']! + structured.usage['completion_tokens']!);
  });

  it('chat_completion with messages honours max_tokens and temperature', async () => {
    const result = await callTool(await connect(), 'chat_completion', {
      model: 'auto',
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Tell me a long story.' }],
      max_tokens: 3,
      temperature: 0,
    });
    const structured = result.structuredContent as { model: string; finish_reason: string; usage: { completion_tokens: number } };
    expect(structured).toMatchObject({ model: 'auto', finish_reason: 'length', usage: { completion_tokens: 3 } });
  });

  it('chat_completion with tools: the calls as structured content, then the follow-up turn answers in text', async () => {
    const client = await connect();
    await client.listTools();
    const tools = [{ type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } } }];
    const messages: Record<string, unknown>[] = [{ role: 'user', content: 'What time is it?' }];
    const first = await callTool(client, 'chat_completion', { model: 'fast', messages, tools, tool_choice: 'required', seed: 1 });
    expect(first.isError).toBeFalsy();
    const structured = first.structuredContent as { finish_reason: string; tool_calls: { id: string; function: { name: string; arguments: string } }[] };
    expect(structured.finish_reason).toBe('tool_calls');
    expect(JSON.parse(textOf(first))).toEqual({ tool_calls: structured.tool_calls });
    expect(typeof JSON.parse(structured.tool_calls[0]!.function.arguments).zone).toBe('string');

    messages.push({ role: 'assistant', content: null, tool_calls: structured.tool_calls });
    for (const call of structured.tool_calls) messages.push({ role: 'tool', tool_call_id: call.id, content: '12:00' });
    const second = await callTool(client, 'chat_completion', { model: 'fast', messages, tools, seed: 1 });
    expect(second.structuredContent).toMatchObject({ finish_reason: 'stop' });
    expect(textOf(second).length).toBeGreaterThan(0);

    const json = await callTool(client, 'chat_completion', { model: 'fast', prompt: 'JSON please', response_format: { type: 'json_schema', json_schema: { name: 'n', schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } } } });
    expect(Number.isInteger(JSON.parse(textOf(json)).n)).toBe(true);
  });

  it.each([
    ['an out-of-range temperature', { model: 'fast', prompt: 'x', temperature: 5 }, /invalid_value, argument temperature/],
    ['a wrong type', { model: 'fast', prompt: 'x', max_tokens: 'many' }, /invalid_type, argument max_tokens/],
    ['both prompt and messages', { model: 'fast', prompt: 'x', messages: [{ role: 'user', content: 'y' }] }, /not both/],
    ['neither prompt nor messages', { model: 'fast' }, /missing_required_parameter/],
    ['a bad role', { model: 'fast', messages: [{ role: 'robot', content: 'y' }] }, /invalid_role, argument messages\[0\]\.role/],
    ['an unknown argument', { model: 'fast', prompt: 'x', top_k: 3 }, /no argument "top_k"/],
    ['an unanswered tool call id', { model: 'fast', messages: [{ role: 'user', content: 'x' }, { role: 'tool', tool_call_id: 'call_x', content: 'y' }] }, /invalid_value, argument messages\[1\]\.tool_call_id/],
    ['no model', { prompt: 'x' }, /missing_required_parameter, argument model/],
    ['an unknown model', { model: 'gpt-9', prompt: 'x' }, /model_not_found/],
    ['max_tokens above the model limit', { model: 'pro', prompt: 'x', max_tokens: 4096 }, /at most 2048/],
  ])('bad arguments come back as a tool error: %s', async (_name, args, message) => {
    const result = await callTool(await connect(), 'chat_completion', args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(message);
  });

  it('a model outside the key scope is a tool error (model_not_allowed)', async () => {
    const scoped = await gateway.createKey({ models: ['fast'] });
    const result = await callTool(await connect({ authorization: `Bearer ${scoped.key}` }), 'chat_completion', { model: 'pro', prompt: 'x' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/may not use the model "pro".*model_not_allowed/);
  });

  it('an unknown tool is a JSON-RPC error', async () => {
    await expect(callTool(await connect(), 'summarise', {})).rejects.toThrow(/Unknown tool: summarise/);
  });

  it('an upstream failure is a tool error, not a transport failure', async () => {
    const client = await connect();
    const result = await callTool(client, 'chat_completion', { model: 'relay', prompt: 'mock:{"kind":"status","status":500}' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/upstream_error/);
    const ok = await callTool(client, 'chat_completion', { model: 'relay', prompt: 'mock:{"kind":"json","text":"from upstream"}' });
    expect(textOf(ok)).toBe('from upstream');
  });

  it('a rate-limited key gets a tool error on the call over its limit, and usage is recorded per call', async () => {
    // Three requests a minute: the handshake (initialize, then notifications/initialized) takes two.
    const limited = await gateway.createKey({ accountEmail: 'limited@example.com', rpm: 3 });
    const client = await connect({ authorization: `Bearer ${limited.key}` });
    const first = await callTool(client, 'chat_completion', { model: 'fast', prompt: 'one' });
    expect(first.isError).toBeFalsy();
    const second = await callTool(client, 'chat_completion', { model: 'fast', prompt: 'two' });
    expect(second.isError).toBe(true);
    expect(textOf(second)).toMatch(/Rate limit reached for this key\. Retry after \d+ s\. \(rate_limit_exceeded\)/);
    // Every MCP message counts against the key's rate, not only completions: the POST is refused.
    await expect(callTool(client, 'list_models', {})).rejects.toMatchObject({ code: 429 });

    const today = new Date().toISOString().slice(0, 10);
    const { usage: billed } = first.structuredContent as { usage: { prompt_tokens: number; completion_tokens: number } };
    // The usage recorder flushes once a second.
    await expect.poll(async () => (await gateway.app.store.usageByDay([limited.id], today, today))[0])
      .toMatchObject({ requests: 1, promptTokens: billed.prompt_tokens, completionTokens: billed.completion_tokens });
  });

  it('refuses a client without a key (401)', async () => {
    await expect(connect({})).rejects.toMatchObject({ code: 401 });
  });

  it('refuses a browser origin that is not allowed (403)', async () => {
    await expect(connect({ authorization: `Bearer ${key}`, origin: 'https://evil.example' })).rejects.toMatchObject({ code: 403 });
  });
});
