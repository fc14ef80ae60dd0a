// Stored Responses API responses in Redis: each a string that expires by itself, an index per
// account (ids by expiry) and their sizes, all under the account's hash tag so that the scripts
// that keep the cap run in one Cluster slot: two instances saving at once cannot pass it.
import type { RedisClient } from './redis-connection.ts';
import { storeKeys } from './redis-keys.ts';
import { DELETE_RESPONSE, RESPONSE_BYTES, SAVE_RESPONSE } from './redis-scripts.ts';
import { ResponseStorageFullError, type StoredResponse } from './store.ts';

export class RedisResponses {
  readonly #client: RedisClient;

  constructor(client: RedisClient) {
    this.#client = client;
  }

  async save(record: StoredResponse, maxBytesPerAccount: number): Promise<void> {
    const { accountId, id } = record;
    const text = JSON.stringify(record);
    const keys = [storeKeys.response(accountId, id), storeKeys.responses(accountId), storeKeys.responseBytes(accountId)];
    const saved = await SAVE_RESPONSE.run(this.#client, keys, [id, text, Buffer.byteLength(record.body), record.expiresAt, Date.now(), maxBytesPerAccount]);
    if (saved !== 1) throw new ResponseStorageFullError(maxBytesPerAccount);
  }

  async find(accountId: string, id: string): Promise<StoredResponse | undefined> {
    const text = await this.#client.get(storeKeys.response(accountId, id));
    if (text === null) return undefined;
    const record = JSON.parse(text) as StoredResponse;
    return record.accountId === accountId && record.expiresAt > Date.now() ? Object.freeze(record) : undefined;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const keys = [storeKeys.response(accountId, id), storeKeys.responses(accountId), storeKeys.responseBytes(accountId)];
    return (await DELETE_RESPONSE.run(this.#client, keys, [id, Date.now()])) === 1;
  }

  async bytes(accountId: string): Promise<number> {
    return Number(await RESPONSE_BYTES.run(this.#client, [storeKeys.responses(accountId), storeKeys.responseBytes(accountId)], [Date.now()]));
  }
}
