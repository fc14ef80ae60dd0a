import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { startRedis } from '../../helpers/redis-server.ts';

describe('test redis-server', () => {
  it('starts on a free port, survives a restart empty, and stops', async () => {
    const redis = await startRedis();
    const client = new Redis(redis.url, { maxRetriesPerRequest: 1, lazyConnect: true });
    await client.connect();
    await client.set('k', 'v');
    expect(await client.get('k')).toBe('v');
    await redis.restart();
    await expect.poll(() => client.get('k')).toBeNull(); // once the client has reconnected
    client.disconnect();
    await redis.stop();
  });
});
