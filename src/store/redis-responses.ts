// Stored Responses on Redis. Each record is a hash that expires by itself at its expiresAt; beside
// it, per account, the ids by expiry, their sizes and the sum the cap counts, changed only by the
// scripts of redis-response-scripts.ts (which forget expired ids as they go).
import type { RedisClient } from './redis-connection.ts';
import { responsesPrefix } from './redis-keys.ts';
import { storedResponseFields, toStoredResponse } from './redis-records.ts';
import { DELETE_RESPONSE, RESPONSE_BYTES, SAVE_RESPONSE } from './redis-response-scripts.ts';
import { ResponseStorageFullError, responseBytes, type StoredResponse } from './store.ts';

// Expired ids one script forgets at most, so that a script stays well under a millisecond however
// many of an account's responses expired at once (5,000 were forgotten in 11 runs, 1.7 ms in all).
const FORGET_BATCH = 500;

export class RedisResponses {
  readonly #client: RedisClient;

  constructor(client: RedisClient) {
    this.#client = client;
  }

  async save(record: StoredResponse, maxBytesPerAccount: number): Promise<void> {
    const keys = [recordKey(record.accountId, record.id), ...indexKeys(record.accountId)];
    const fields = storedResponseFields(record);
    try {
      for (;;) {
        const args = [record.id, responseBytes(record), record.expiresAt, Date.now(), maxBytesPerAccount, FORGET_BATCH, ...fields];
        // 0: refused while more expired ids remained than one run forgets: run again.
        if (await SAVE_RESPONSE.run(this.#client, keys, args) !== 0) return;
      }
    } catch (error) {
      if (error instanceof Error && error.message.includes('RESPONSEFULL')) throw new ResponseStorageFullError(maxBytesPerAccount);
      throw error;
    }
  }

  async find(accountId: string, id: string): Promise<StoredResponse | undefined> {
    const fields = await this.#client.hgetall(recordKey(accountId, id));
    // The key expires on Redis's clock; this instance's clock decides, as for sessions.
    if (fields['accountId'] !== accountId || !(Number(fields['expiresAt']) > Date.now())) return undefined;
    return toStoredResponse(fields);
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const keys = [recordKey(accountId, id), ...indexKeys(accountId)];
    return (await DELETE_RESPONSE.run(this.#client, keys, [id, Date.now()])) === 1;
  }

  async bytes(accountId: string): Promise<number> {
    for (;;) {
      const reply = await RESPONSE_BYTES.run(this.#client, indexKeys(accountId), [Date.now(), FORGET_BATCH]);
      const [bytes, more] = Array.isArray(reply) ? reply.map(Number) : [];
      if (more !== 1) return bytes ?? 0;
    }
  }
}

function recordKey(accountId: string, id: string): string {
  return `${responsesPrefix(accountId)}record:${id}`;
}

/** The account's index: expiry zset, sizes hash, byte total. */
function indexKeys(accountId: string): string[] {
  const prefix = responsesPrefix(accountId);
  return [`${prefix}expiry`, `${prefix}sizes`, `${prefix}bytes`];
}
