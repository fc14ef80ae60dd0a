// Micro-benchmarks of Munja's per-request and per-chunk hot paths, each on typical input.
// Run: node bench/micro/hot-paths.bench.ts   (about 10 s; prints a markdown table)
import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { digestApiKey, generateApiKey, hasValidFormat } from '../../src/auth/api-key.ts';
import { DEFAULT_LIMITS } from '../../src/config/default-config.ts';
import { MemoryLimiter } from '../../src/ratelimit/memory-limiter.ts';
import { ByteBatch } from '../../src/streaming/byte-batch.ts';
import { ChatChunks } from '../../src/streaming/chat-chunks.ts';
import { countPromptTokens } from '../../src/tokens/count-tokens.ts';
import { SseEventSplitter } from '../../src/upstream/sse-event-splitter.ts';
import { StreamEventFilter } from '../../src/upstream/stream-event-filter.ts';
import { parseJsonBody } from '../../src/validation/parse-json-body.ts';
import { validateChatRequest } from '../../src/validation/validate-chat-request.ts';
import { chunkFactory, sseFrame } from '../../test/helpers/mock-upstream-vllm.ts';
import { type Timing, timeAsync, timeSync, timingTable } from './timing.ts';

/** A typical chat request of about 2 KB: a system prompt, a few turns, common options. */
function typicalBody(): Uint8Array {
  const sentence = 'Please keep the answer short, concrete and friendly, and mention the next step. ';
  const body = {
    model: 'default',
    messages: [
      { role: 'system', content: `You are the support assistant of a small online shop. ${sentence.repeat(4)}` },
      { role: 'user', content: `My order 10423 has not arrived yet. ${sentence.repeat(3)}` },
      { role: 'assistant', content: `I am sorry to hear that. ${sentence.repeat(7)}` },
      { role: 'user', content: `It was sent to Zagreb, Ilica 12. ${sentence.repeat(6)}` },
    ],
    temperature: 0.7,
    max_tokens: 512,
    stream: true,
    stream_options: { include_usage: true },
    user: 'customer-8841',
  };
  return Buffer.from(JSON.stringify(body));
}

async function main(): Promise<void> {
  const timings: Timing[] = [];
  const bytes = typicalBody();
  timings.push(await timeSync(`parseJsonBody + validateChatRequest (${bytes.length} B body)`, () => validateChatRequest(parseJsonBody(bytes))));

  const parsed = validateChatRequest(parseJsonBody(bytes));
  timings.push(await timeSync('countPromptTokens (same messages, o200k)', () => countPromptTokens(parsed.messages)));

  const key = generateApiKey();
  const secret = randomBytes(32);
  timings.push(await timeSync('hasValidFormat + digestApiKey', () => hasValidFormat(key) && digestApiKey(key, secret)));
  timings.push(await timeSync('↳ hasValidFormat alone', () => hasValidFormat(key)));
  timings.push(await timeSync('↳ digestApiKey alone', () => digestApiKey(key, secret)));
  // Reference, not Munja code: the same HMAC with the secret turned into a KeyObject once.
  const secretKey = createSecretKey(secret);
  timings.push(await timeSync('↳ (reference, not Munja code) HMAC-SHA-256 with a KeyObject made once', () => createHmac('sha256', secretKey).update(key).digest('hex')));

  const limiter = new MemoryLimiter({ ...DEFAULT_LIMITS, rpm: 100_000_000, tpm: 2_000_000_000, concurrency: 0, account: null });
  const subject = { keyId: 'key_bench', accountId: 'acct_bench', limits: { rpm: 100_000_000, tpm: 2_000_000_000 } };
  timings.push(await timeAsync('MemoryLimiter acquire + settle (awaited)', async () => {
    const decision = await limiter.acquire(subject, 600);
    if (decision.lease !== null) await limiter.settle(decision.lease, 150);
    return decision;
  }));
  await limiter.close();

  // A content chunk as vLLM sends it, relayed under another model name (the rewrite path).
  const frame = Buffer.from(sseFrame(chunkFactory('Qwen/Qwen3-8B', true, false).content(' weather')));
  const splitter = new SseEventSplitter();
  const filter = new StreamEventFilter({ upstreamModel: 'Qwen/Qwen3-8B', publicModel: 'default', forwardUsage: false });
  let kept = 0;
  const batch = new ByteBatch();
  const onEvent = (event: Buffer, text: string) => {
    filter.filter(event, text, batch);
    kept += batch.take().length;
  };
  timings.push(await timeSync(`SseEventSplitter.push + StreamEventFilter.filter + ByteBatch.take (${frame.length} B chunk)`, () => {
    splitter.push(frame, onEvent);
    return kept;
  }));

  const chunks = new ChatChunks('chatcmpl-3f9a2c41d7e84b0c9a1e5d6f7b8c9d0e', Math.floor(Date.now() / 1000), 'fast', true);
  timings.push(await timeSync('ChatChunks.content (one word)', () => chunks.content(0, ' weather')));

  process.stdout.write(`# Munja hot paths (${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'})\n\n${timingTable(timings)}\n`);
}

await main();
