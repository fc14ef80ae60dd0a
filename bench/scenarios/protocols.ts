// The same relayed request as chat-json and chat-stream (same mock behaviour, same reply), sent
// through Munja's other protocols: what their translation costs is the difference in one process.
import { STREAM_CHUNKS } from '../mock/models.ts';
import { REPLY_TEXT } from '../mock/reply.ts';
import { parseJson } from './checks.ts';
import type { HttpRequest, Scenario, Target } from './scenario.ts';

const INSTRUCTIONS = 'You are a helpful assistant. Answer briefly and precisely.';
const QUESTION = 'What is on my calendar today, and will it rain?';

function responsesRequest(target: Target, stream: boolean): HttpRequest {
  return {
    method: 'POST',
    url: `${target.origin}/v1/responses`,
    headers: { ...target.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ model: target.model(stream ? 'stream' : 'json'), instructions: INSTRUCTIONS, input: QUESTION, max_output_tokens: 512, store: false, ...(stream ? { stream: true } : {}) }),
  };
}

export const responsesJson: Scenario = {
  id: 'responses-json',
  workload: 'Responses API, JSON reply (~60 words)',
  expectStatus: 200,
  request: (target) => responsesRequest(target, false),
  check: (body) => {
    const { value, problem } = parseJson(body);
    if (problem !== undefined) return problem;
    const response = value as { status?: string; output?: { content?: { text?: string }[] }[] };
    const text = response.output?.[0]?.content?.[0]?.text;
    return response.status === 'completed' && text === REPLY_TEXT ? undefined : `status ${response.status}, text ${JSON.stringify(text)?.slice(0, 80)}`;
  },
};

export const responsesStream: Scenario = {
  id: 'responses-stream',
  workload: `Responses API, SSE stream (${STREAM_CHUNKS} chunks)`,
  expectStatus: 200,
  request: (target) => responsesRequest(target, true),
  check: (body) => {
    const deltas = body.split('event: response.output_text.delta\n').length - 1;
    if (!body.includes('event: response.completed\n')) return 'no response.completed event';
    return deltas === STREAM_CHUNKS ? undefined : `${deltas} text deltas, expected ${STREAM_CHUNKS}`;
  },
};

function messagesRequest(target: Target, stream: boolean): HttpRequest {
  return {
    method: 'POST',
    url: `${target.origin}/v1/messages`,
    headers: { ...target.headers, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: target.model(stream ? 'stream' : 'json'), system: INSTRUCTIONS, messages: [{ role: 'user', content: QUESTION }], max_tokens: 512, ...(stream ? { stream: true } : {}) }),
  };
}

export const messagesJson: Scenario = {
  id: 'messages-json',
  workload: 'Messages API, JSON reply (~60 words)',
  expectStatus: 200,
  request: (target) => messagesRequest(target, false),
  check: (body) => {
    const { value, problem } = parseJson(body);
    if (problem !== undefined) return problem;
    const message = value as { type?: string; content?: { text?: string }[] };
    const text = message.content?.[0]?.text;
    return message.type === 'message' && text === REPLY_TEXT ? undefined : `type ${message.type}, text ${JSON.stringify(text)?.slice(0, 80)}`;
  },
};

export const messagesStream: Scenario = {
  id: 'messages-stream',
  workload: `Messages API, SSE stream (${STREAM_CHUNKS} chunks)`,
  expectStatus: 200,
  request: (target) => messagesRequest(target, true),
  check: (body) => {
    const deltas = body.split('"type":"text_delta"').length - 1;
    if (!body.includes('event: message_stop\n')) return 'no message_stop event';
    return deltas === STREAM_CHUNKS ? undefined : `${deltas} text deltas, expected ${STREAM_CHUNKS}`;
  },
};
