// With Redis the key lookup takes a round trip, so the body starts arriving before the key is
// known: what came with the headers is held, the socket paused, and reading resumes once the key
// is good. A body sent in pieces across that wait arrives whole; a bad key is refused unread.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/auth/api-key.ts';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { httpRequest, openSocket, parseResponses } from '../helpers/raw-socket.ts';
import { startRedis, type TestRedis } from '../helpers/redis-server.ts';

let redis: TestRedis;
let gateway: TestGateway;

beforeAll(async () => {
  redis = await startRedis();
  // A generous Redis deadline: on a busy test machine the 50 ms default turns calls into timeouts.
  gateway = await startGateway({ ...FAST_TEST_CONFIG, redis: { commandTimeoutMs: 1_000 } }, { env: { REDIS_URL: redis.url } });
});
afterAll(async () => {
  await gateway.close();
  await redis.stop();
});


async function sendInPieces(auth: string, pieces: readonly Buffer[]): Promise<ReturnType<typeof parseResponses>['responses']> {
  const socket = await openSocket(gateway.port);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => {});
  const total = pieces.reduce((sum, piece) => sum + piece.length, 0);
  socket.write(httpRequest('POST /v1/chat/completions HTTP/1.1', ['Host: x', `Authorization: Bearer ${auth}`, 'Content-Type: application/json', `Content-Length: ${total}`]));
  for (const piece of pieces) {
    socket.write(piece);
    await sleep(30); // the pieces arrive apart, while the key is being checked
  }
  await expect.poll(() => parseResponses(Buffer.concat(chunks)).responses).not.toHaveLength(0);
  socket.destroy();
  return parseResponses(Buffer.concat(chunks)).responses;
}

describe('a body that arrives while the key is checked in Redis', () => {
  it('is read whole once the (uncached) key is good', async () => {
    const { key } = await gateway.createKey();
    const body = Buffer.from(JSON.stringify({ model: 'fast', max_tokens: 2, messages: [{ role: 'user', content: 'y'.repeat(80_000) }] }));
    const pieces = [body.subarray(0, 30_000), body.subarray(30_000, 60_000), body.subarray(60_000)];
    const [response] = await sendInPieces(key, pieces);
    expect(response?.status).toBe(200);
    expect(JSON.parse(response!.body.toString()).usage.prompt_tokens).toBeGreaterThan(10_000);
  });

  it('is refused unread (401) for a well-formed key that does not exist', async () => {
    const [response] = await sendInPieces(generateApiKey(), [Buffer.alloc(100_000, 0x20), Buffer.alloc(100_000, 0x20)]);
    expect(response?.status).toBe(401);
  });
});
