// The live fleet: every instance's limiter writes a heartbeat into one sorted set (score: Redis
// TIME) and reads back how many instances beat within the window. While Redis cannot be reached,
// each instance takes limit / that count; the heartbeat is also what notices Redis answering again
// when no request is asking.
import type { RedisClient } from '../store/redis-connection.ts';

export const FLEET_KEY = 'munja:fleet:v1';
export const HEARTBEAT_MS = 2_000;
/** An instance that has not beaten for this long (five beats) is no longer counted. */
export const LIVE_WINDOW_MS = 10_000;
const COMMAND = 'munjaFleetHeartbeat';

const LUA = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local window = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('PEXPIRE', KEYS[1], window * 2)
return redis.call('ZCARD', KEYS[1])
`;

type Heartbeat = (key: string, instance: string, windowMs: number) => Promise<number>;

export class FleetRegistry {
  readonly #client: RedisClient;
  readonly #instance: string;
  readonly #beat: Heartbeat;
  #size = 1;

  constructor(client: RedisClient, instance: string) {
    this.#client = client;
    this.#instance = instance;
    if (!(COMMAND in client)) client.defineCommand(COMMAND, { numberOfKeys: 1, lua: LUA });
    const command = (client as unknown as Record<string, Heartbeat>)[COMMAND]!;
    this.#beat = (...args) => command.apply(client, args);
  }

  /** Live instances at the last heartbeat (this one included; 1 before the first). */
  get size(): number {
    return this.#size;
  }

  async beat(): Promise<void> {
    this.#size = Math.max(1, Number(await this.#beat(FLEET_KEY, this.#instance, LIVE_WINDOW_MS)));
  }

  /** Leaves the fleet at once instead of after the window. */
  async leave(): Promise<void> {
    await this.#client.zrem(FLEET_KEY, this.#instance);
  }
}
