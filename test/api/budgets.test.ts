// Spend budgets through the HTTP API, on the default settings but for a price and a budget: each
// served request is charged its real cost from usage, a failed one nothing, a stream cut short
// what it delivered; the worst case that does not fit is refused with 429 budget_exceeded before
// the upstream is asked; a model without a price is not held back; and the Responses and
// Messages APIs and MCP's chat tool reserve and settle as chat does.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { formatMicros } from '../../src/budget/price.ts';
import { PassThrough } from 'node:stream';
import { DashboardClient } from '../helpers/dashboard-client.ts';
import { type GatewayOptions, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { contentEvent, type ScriptedUpstream, startScriptedUpstream, stream } from '../helpers/scripted-upstream.ts';

const PROMPT_TOKENS = 11;
const COMPLETION_TOKENS = 2;
/** input 1 and output 2 per million tokens: 1 and 2 micro-units a token. */
const COST = PROMPT_TOKENS * 1 + COMPLETION_TOKENS * 2;
const COMPLETION = JSON.stringify({
  id: 'c1', object: 'chat.completion', created: 1, model: 'up-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hi there' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: PROMPT_TOKENS, completion_tokens: COMPLETION_TOKENS, total_tokens: PROMPT_TOKENS + COMPLETION_TOKENS },
});

let upstream: ScriptedUpstream;
let gateway: TestGateway;
let key: string;
let subject: { keyId: string; accountId: string };
let upstreamCalls = 0;

async function start(amount: number, period: 'day' | 'month' | 'total', options: GatewayOptions = {}): Promise<void> {
  gateway = await startGateway({
    budgets: { currency: 'EUR', key: { amount, period } },
    models: {
      priced: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up-model' }], price: { input: 1, output: 2 } },
      free: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up-model' }] },
    },
  }, options);
  const created = await gateway.createKey();
  key = created.key;
  subject = { keyId: created.id, accountId: created.accountId };
}

beforeEach(async () => {
  upstream = await startScriptedUpstream();
  upstreamCalls = 0;
  upstream.answer = (response) => {
    upstreamCalls++;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(COMPLETION);
  };
});
afterEach(async () => {
  await gateway.close();
  await upstream.close();
});

function post(path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return fetch(`${gateway.baseURL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

const chat = (body: Record<string, unknown> = {}) => post('/chat/completions', { model: 'priced', max_tokens: 10, messages: [{ role: 'user', content: 'Hello' }], ...body });

async function state() {
  return (await gateway.app.budgets!.state(subject))!.key;
}

it('charges served requests their real cost and refuses the one whose worst case does not fit, until the day ends', async () => {
  await start(0.0001, 'day'); // 100 micro-units
  let served = 0;
  let refusal: Response | null = null;
  for (let i = 0; i < 20 && refusal === null; i++) {
    const response = await chat();
    if (response.status === 200) {
      served++;
      await response.text();
    } else {
      refusal = response;
    }
  }
  expect(served).toBeGreaterThan(0);
  expect(refusal?.status).toBe(429);
  const callsBefore = upstreamCalls;
  const body = await refusal!.json() as { error: { code: string; type: string; message: string } };
  expect(body.error.code).toBe('budget_exceeded');
  expect(body.error.type).toBe('rate_limit_error');
  expect(body.error.message).toContain('EUR');
  const spent = served * COST;
  await vi.waitFor(async () => expect(await state()).toEqual({ spent, reserved: 0, endsAt: (Math.floor(Date.now() / 86_400_000) + 1) * 86_400_000 }));
  expect(spent).toBeLessThanOrEqual(100);
  expect(refusal!.headers.get('x-budget-remaining')).toBe(formatMicros(100 - spent));
  expect(refusal!.headers.get('x-budget-limit')).toBe('0.000100');
  expect(refusal!.headers.get('x-budget-currency')).toBe('EUR');
  const untilMidnight = ((Math.floor(Date.now() / 86_400_000) + 1) * 86_400_000 - Date.now()) / 1000;
  expect(Number(refusal!.headers.get('retry-after'))).toBeGreaterThan(untilMidnight - 60);
  expect(Number(refusal!.headers.get('retry-after'))).toBeLessThanOrEqual(Math.ceil(untilMidnight) + 1);
  // Refused before the upstream was asked.
  expect(upstreamCalls).toBe(callsBefore);
});

it('reserves max_tokens or, without it, the model output limit, and gives no retry hint for a total budget', async () => {
  await start(0.001, 'total'); // 1000 micro-units: 10 tokens out fit, the default output limit does not
  expect((await chat()).status).toBe(200);
  const refused = await chat({ max_tokens: undefined });
  expect(refused.status).toBe(429);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('budget_exceeded');
  expect(refused.headers.get('retry-after')).toBeNull();
  expect(refused.headers.get('x-budget-period')).toBe('total');
  await vi.waitFor(async () => expect(await state()).toEqual({ spent: COST, reserved: 0, endsAt: null }));
});

it('settles a failed request at zero', async () => {
  await start(0.00005, 'month'); // 50 micro-units: room for one reservation of ~31, not two

  upstream.answer = (response) => {
    response.writeHead(500, { 'content-type': 'application/json' });
    response.end('{"error":{"message":"boom"}}');
  };
  for (let i = 0; i < 3; i++) expect((await chat()).status).toBeGreaterThanOrEqual(500);
  expect(await state()).toMatchObject({ spent: 0, reserved: 0 });
  upstream.answer = (response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(COMPLETION);
  };
  // Had a failure kept its reservation or been charged it, this one would not fit.
  expect((await chat()).status).toBe(200);
});

it('charges a stream cut short for what it delivered, not for its reservation', async () => {
  await start(1, 'day');
  // Two pieces of text, then the connection ends: no finish, no usage, no [DONE].
  upstream.answer = stream(contentEvent('Hello'), contentEvent(' world'));
  const response = await chat({ stream: true, max_tokens: 1000 });
  expect(response.status).toBe(200);
  await response.text();
  await vi.waitFor(async () => expect((await state()).reserved).toBe(0));
  const { spent } = await state();
  expect(spent).toBeGreaterThan(0);
  // The reservation was at least 1000 tokens out at 2 each; what was delivered is a few tokens.
  expect(spent).toBeLessThan(100);
});

it('lets a model without a price through a spent budget, for nothing', async () => {
  await start(0.00002, 'day'); // 20 micro-units: one priced request, then refusals
  expect((await chat({ max_tokens: 1 })).status).toBe(200);
  expect((await chat({ max_tokens: 1 })).status).toBe(429);
  const before = await state();
  for (let i = 0; i < 3; i++) expect((await chat({ model: 'free' })).status).toBe(200);
  expect(await state()).toEqual(before);
});

it('reserves and settles Responses, Messages and MCP chat-tool requests as chat requests', async () => {
  await start(1, 'day');
  const responses = await post('/responses', { model: 'priced', input: 'Hello', max_output_tokens: 10 });
  expect(responses.status).toBe(200);
  await vi.waitFor(async () => expect(await state()).toMatchObject({ spent: COST, reserved: 0 }));

  const messages = await post('/messages', { model: 'priced', max_tokens: 10, messages: [{ role: 'user', content: 'Hello' }] }, { 'anthropic-version': '2023-06-01' });
  expect(messages.status).toBe(200);
  await vi.waitFor(async () => expect(await state()).toMatchObject({ spent: 2 * COST, reserved: 0 }));

  const mcp = await fetch(`${gateway.origin}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'chat_completion', arguments: { model: 'priced', prompt: 'Hello', max_tokens: 10 } } }),
  });
  expect(mcp.status).toBe(200);
  expect(await mcp.text()).not.toContain('"isError":true');
  await vi.waitFor(async () => expect(await state()).toMatchObject({ spent: 3 * COST, reserved: 0 }));
});

it('puts the cost on the request log line and on the spend counter by model', async () => {
  const log = new PassThrough();
  let lines = '';
  log.on('data', (chunk: Buffer) => { lines += chunk.toString(); });
  await start(1, 'day', { logTo: log, env: { MUNJA_METRICS_PORT: '0' } });
  expect((await chat()).status).toBe(200);
  expect((await chat({ model: 'free' })).status).toBe(200);
  await vi.waitFor(() => expect(lines).toContain(`"model":"priced"`));
  const entries = lines.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.route !== undefined && entry.model !== null);
  expect(entries.find((entry) => entry.model === 'priced')?.costMicros).toBe(COST);
  expect(entries.find((entry) => entry.model === 'free')).not.toHaveProperty('costMicros');
  const metrics = await (await fetch(`http://127.0.0.1:${gateway.app.metricsPort}/metrics`)).text();
  expect(metrics).toContain(`munja_spend_micros_total{model="priced"} ${COST}`);
  expect(metrics).not.toMatch(/munja_spend_micros_total\{[^}]*key/);
});

it("shows each key's budget on the dashboard's keys page: spent, reserved, left", async () => {
  await start(0.001, 'month');
  const user = new DashboardClient(gateway.origin);
  expect((await user.signUp('budget@example.com')).status).toBe(200);
  const created = await user.call('POST', '/dashboard/api/keys', { name: 'priced' });
  expect(created.status).toBe(200);
  key = created.body.key;
  expect((await chat()).status).toBe(200);
  const listed = await user.call('GET', '/dashboard/api/keys');
  const now = new Date();
  expect(listed.body.keys[0].budget).toEqual({
    scope: 'key', currency: 'EUR', period: 'month', limit: '0.001000', spent: formatMicros(COST), reserved: '0.000000',
    left: formatMicros(1_000 - COST), renewsAt: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
  });
  await user.close();
});
