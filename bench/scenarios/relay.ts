// The upstream relay: the same chat request sent to the mock upstream directly (the baseline),
// through each peer and through Munja. The mock's behaviour is in the model string, so every path
// makes it do exactly the same work.
import { type MockKind, STREAM_CHUNKS } from '../mock/models.ts';
import { REPLY_TEXT } from '../mock/reply.ts';
import { checkCompletion, checkStream } from './checks.ts';
import type { HttpRequest, Scenario, Target } from './scenario.ts';

const SYSTEM = { role: 'system', content: 'You are a helpful assistant. Answer briefly and precisely.' };
const USER = { role: 'user', content: 'What is on my calendar today, and will it rain?' };

/** A chat request for the mock behaviour `kind`, as `target` wants it. */
export function chatRequest(target: Target, kind: MockKind, stream: boolean): HttpRequest {
  return {
    method: 'POST',
    url: `${target.origin}/v1/chat/completions`,
    headers: { ...target.headers, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: target.model(kind),
      messages: [SYSTEM, USER],
      max_tokens: 512,
      // Munja always asks the upstream for usage; the other paths ask too, so the mock's work and
      // the bytes the client gets are the same everywhere.
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    }),
  };
}

export const chatJson: Scenario = {
  id: 'chat-json',
  workload: 'chat, JSON reply (~60 words)',
  expectStatus: 200,
  request: (target) => chatRequest(target, 'json', false),
  check: (body, target) => checkCompletion(body, target.replyModel('json'), REPLY_TEXT),
};

export const chatStream: Scenario = {
  id: 'chat-stream',
  workload: `chat, SSE stream (${STREAM_CHUNKS} chunks)`,
  expectStatus: 200,
  request: (target) => chatRequest(target, 'stream', true),
  check: (body, target) => checkStream(body, target.replyModel('stream'), STREAM_CHUNKS),
};
