// What the mock upstream does with a POST /v1/responses or /v1/messages (the APIs vLLM also serves):
// the same behaviours as for chat, scripted by `mock:{json}` as the last input text, in that API's
// bodies and events (native-events.ts).
import type { Behavior, Channel } from './mock-upstream-behaviors.ts';
import { scriptedBehavior } from './mock-upstream-behaviors.ts';
import { messageObject, messagesEvents, outputMessage, responseObject, responsesEvents } from './native-events.ts';
import { errorBody } from './mock-upstream-vllm.ts';

export type NativeApi = 'responses' | 'messages';

const DEFAULT_PROMPT_TOKENS = 10;

interface NativeBody {
  readonly model?: unknown;
  readonly stream?: unknown;
  readonly input?: unknown;
  readonly messages?: unknown;
}

/** The behaviour scripted in the body's last input text, a script error, or the natural one. */
export function nativeBehavior(body: NativeBody, fallback: Behavior | undefined): Behavior | { error: string } {
  const scripted = scriptedBehavior({ messages: [{ content: lastText(body) }] });
  return scripted ?? fallback ?? (body.stream === true ? { kind: 'stream', chunks: 3 } : { kind: 'json' });
}

function lastText(body: NativeBody): unknown {
  const items = typeof body.input === 'string' ? [{ content: body.input }] : Array.isArray(body.input) ? body.input : Array.isArray(body.messages) ? body.messages : [];
  const content: unknown = items.at(-1)?.content;
  return Array.isArray(content) ? (content.at(-1) as { text?: unknown } | undefined)?.text : content;
}

export async function runNativeBehavior(api: NativeApi, behavior: Behavior, body: NativeBody, channel: Channel, requestId: string): Promise<void> {
  const model = typeof body.model === 'string' ? body.model : 'unknown';
  const headers = { 'x-request-id': requestId };
  switch (behavior.kind) {
    case 'json': {
      await channel.pause(behavior.delayMs ?? 0);
      const text = behavior.text ?? 'Hello from the mock upstream.';
      const usage = { input: behavior.promptTokens ?? DEFAULT_PROMPT_TOKENS, output: behavior.completionTokens ?? text.split(/\s+/).filter(Boolean).length };
      const answer = api === 'messages'
        ? messageObject(model, text, usage)
        : responseObject(model, 'completed', { output: [outputMessage(text)], usage: { input_tokens: usage.input, output_tokens: usage.output, total_tokens: usage.input + usage.output } });
      return channel.sendJson(200, answer, headers);
    }
    case 'status': {
      const errorHeaders: Record<string, string> = { ...headers };
      if (behavior.retryAfter !== undefined) errorHeaders['retry-after'] = behavior.retryAfter;
      return channel.sendJson(behavior.status, errorBody(behavior.status, behavior.message ?? `mock upstream error ${behavior.status}`), errorHeaders);
    }
    case 'stream':
    case 'reset':
    case 'hang': {
      if (behavior.kind !== 'stream' && behavior.afterChunks === undefined) return behavior.kind === 'reset' ? channel.reset() : channel.closed;
      const count = behavior.kind === 'stream' ? behavior.chunks : behavior.afterChunks!;
      const deltas = Array.from({ length: count }, (_, index) => (behavior.chunkText ?? `w${index + 1} `).padEnd(behavior.chunkBytes ?? 0, 'x'));
      const usage = { input: behavior.promptTokens ?? DEFAULT_PROMPT_TOKENS, output: count };
      const whole = behavior.kind === 'stream';
      const events = api === 'messages' ? messagesEvents(model, deltas, usage, whole) : responsesEvents(model, deltas, usage, whole);
      channel.startEventStream();
      await channel.pause(behavior.firstDelayMs ?? 0);
      for (const event of events) {
        if (event.includes('.delta"') || event.includes('"content_block_delta"')) await channel.pause(behavior.paceMs ?? 0);
        if (!(await channel.writeFrame(event))) return;
      }
      if (whole) return channel.end();
      return behavior.kind === 'reset' ? channel.reset() : channel.closed;
    }
    default:
      return channel.sendJson(400, errorBody(400, `mock: ${behavior.kind} is not scripted for /v1/${api}`));
  }
}
