// The upstream relay: the same chat request sent to the mock upstream directly (the baseline)
// and through Munja (model `relay`, which points at that mock). The mock reads its script from
// the last message (`mock:{json}`), so both paths make it do exactly the same work.
import { checkCompletion, checkStream } from './checks.ts';
import type { Scenario, TargetName, Targets } from './scenario.ts';

/** The model name the mock upstream is asked for (and answers with). */
export const UPSTREAM_MODEL = 'mock-model';
/** Munja's public id for the mock upstream. */
export const RELAY_MODEL = 'relay';
const STREAM_CHUNKS = 100;

// About 60 words: a short but realistic reply (≈ 400 bytes of content).
const REPLY_TEXT =
  'Munja relays this reply from the mock upstream. A typical answer to a routine question is a few ' +
  'sentences long, so this text stands in for one: it mentions the weather, a meeting at ten, the ' +
  'quarterly figures, and a reminder to water the plants before leaving the office on Friday evening.';

const SYSTEM = { role: 'system', content: 'You are a helpful assistant. Answer briefly and precisely.' };

function chatBody(model: string, script: object, stream: boolean): string {
  return JSON.stringify({
    model,
    messages: [SYSTEM, { role: 'user', content: `mock:${JSON.stringify(script)}` }],
    max_tokens: 512,
    // Munja always asks the upstream for usage; the direct request asks too, so the mock's work
    // and the bytes the client gets are the same on both paths.
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });
}

function origin(target: TargetName, targets: Targets): string {
  return target === 'direct' ? targets.direct : targets.munja;
}

function modelFor(target: TargetName): string {
  return target === 'direct' ? UPSTREAM_MODEL : RELAY_MODEL;
}

function chatScenario(workload: string, idPrefix: string, target: TargetName, stream: boolean): Scenario {
  const script = stream ? { kind: 'stream', chunks: STREAM_CHUNKS } : { kind: 'json', text: REPLY_TEXT };
  const body = chatBody(modelFor(target), script, stream);
  return {
    id: `${idPrefix}/${target}`,
    workload,
    target,
    ...(target === 'direct' ? {} : { baseline: `${idPrefix}/direct` }),
    expectStatus: 200,
    request: (targets) => ({
      method: 'POST',
      url: `${origin(target, targets)}/v1/chat/completions`,
      headers: { authorization: `Bearer ${targets.key}`, 'content-type': 'application/json' },
      body,
    }),
    check: (response) =>
      stream ? checkStream(response, modelFor(target), STREAM_CHUNKS) : checkCompletion(response, modelFor(target), REPLY_TEXT),
  };
}

/** Non-streaming and streaming chat, each directly and through Munja. */
export function relayScenarios(targets: readonly TargetName[]): Scenario[] {
  return [
    ...targets.map((target) => chatScenario('chat, JSON reply (~60 words)', 'chat-json', target, false)),
    ...targets.map((target) => chatScenario(`chat, SSE stream (${STREAM_CHUNKS} chunks)`, 'chat-stream', target, true)),
  ];
}
