import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, redisFrom } from '../../../src/config/load-config.ts';
import { parseRedisUrl, redactRedisUrl } from '../../../src/store/redis-url.ts';

describe('REDIS_URL', () => {
  it('passes standalone URLs to ioredis as they are', () => {
    expect(parseRedisUrl(' redis://:pw@10.0.0.1:6380/2 ')).toEqual({ kind: 'standalone', url: 'redis://:pw@10.0.0.1:6380/2' });
    expect(parseRedisUrl('rediss://cache.example.com')).toEqual({ kind: 'standalone', url: 'rediss://cache.example.com' });
  });

  it('reads Sentinel URLs: several sentinels, the master name, a database, credentials for each side', () => {
    expect(parseRedisUrl('redis+sentinel://app:s%40cret@s1:26380,s2,[::1]:26381/mymaster/3?sentinelPassword=sp&sentinelUsername=su')).toEqual({
      kind: 'sentinel',
      sentinels: [{ host: 's1', port: 26380 }, { host: 's2', port: 26379 }, { host: '::1', port: 26381 }],
      name: 'mymaster', db: 3, username: 'app', password: 's@cret', tls: false,
      sentinelUsername: 'su', sentinelPassword: 'sp',
    });
    expect(parseRedisUrl('rediss+sentinel://s1/m')).toMatchObject({ kind: 'sentinel', name: 'm', db: 0, tls: true, password: undefined });
  });

  it('reads Cluster URLs', () => {
    expect(parseRedisUrl('rediss+cluster://:pw@n1:7000,n2')).toEqual({
      kind: 'cluster', nodes: [{ host: 'n1', port: 7000 }, { host: 'n2', port: 6379 }], username: undefined, password: 'pw', tls: true,
    });
  });

  it('refuses what it cannot use', () => {
    for (const bad of ['http://x', 'localhost:6379', 'redis+sentinel://s1', 'redis+sentinel://s1/m/x', 'redis+cluster://n1/0', 'redis+cluster://n1:99999', 'redis://']) {
      expect(() => parseRedisUrl(bad), bad).toThrow(RangeError);
    }
  });

  it('never shows the password', () => {
    expect(redactRedisUrl('redis://user:secret@h:6379/0')).toBe('redis://user:***@h:6379/0');
    expect(redactRedisUrl('redis+cluster://:secret@a:1,b:2')).toBe('redis+cluster://:***@a:1,b:2');
    expect(redactRedisUrl('redis://h:6379')).toBe('redis://h:6379');
  });

  it('is a setting: absent means the embedded store; bad is a ConfigError without the password', () => {
    expect(redisFrom({})).toBeNull();
    expect(redisFrom({ REDIS_URL: ' ' })).toBeNull();
    expect(redisFrom({ REDIS_URL: 'redis://h' })).toEqual({ url: 'redis://h', commandTimeoutMs: 2_000, connectTimeoutMs: 1_000 });
    expect(redisFrom({ REDIS_URL: 'redis://h' }, { commandTimeoutMs: 20 })?.commandTimeoutMs).toBe(20);
    expect(() => redisFrom({ REDIS_URL: 'memcached://u:hunter2@h' })).toThrow(ConfigError);
    expect(() => redisFrom({ REDIS_URL: 'memcached://u:hunter2@h' })).not.toThrow(/hunter2/);
  });

  it('with Redis, the auth cache keeps keys 10 s by default (1 s without), and the config file tunes the deadlines', () => {
    expect(loadConfig({}).authCacheTtlMs).toBe(1_000);
    expect(loadConfig({}).redis).toBeNull();
    const config = loadConfig({ REDIS_URL: 'redis://h' }, { redis: { commandTimeoutMs: 80 } });
    expect(config.authCacheTtlMs).toBe(10_000);
    expect(config.redis).toEqual({ url: 'redis://h', commandTimeoutMs: 80, connectTimeoutMs: 1_000 });
    expect(loadConfig({ REDIS_URL: 'redis://h' }, { server: { authCacheTtlMs: 2_000 } }).authCacheTtlMs).toBe(2_000);
  });
});
