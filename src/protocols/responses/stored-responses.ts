// Responses kept for `previous_response_id` and `GET /v1/responses/{id}` (store: true), in the Store
// (SQLite embedded, Redis in a fleet: any instance continues any conversation). A response is
// saved once it has ended, before its JSON reply is sent; a streamed one as its last event is
// written, and a lookup on this instance waits for a save still under way, so that a client that
// continues at once finds it. (On another instance of a fleet, a follow-up sent within the
// moment the save takes can miss it: a 404 the client may retry.)
import type { Logger } from 'pino';
import { ApiError } from '../../errors/api-error.ts';
import { ResponseStorageFullError, type Store } from '../../store/store.ts';
import type { TranslatedMessage } from './responses-request.ts';

/** What is kept of a response: itself, this turn's input items, and the conversation through its output. */
export interface KeptResponse {
  readonly response: Record<string, unknown>;
  readonly input: readonly Record<string, unknown>[];
  readonly messages: readonly TranslatedMessage[];
}

export interface ResponseKeeping {
  readonly ttlSeconds: number;
  readonly maxStoredBytesPerAccount: number;
}

export type ResponseStore = Pick<Store, 'saveResponse' | 'findResponse' | 'deleteResponse' | 'storedResponseBytes'>;

export class StoredResponses {
  readonly #store: ResponseStore;
  readonly #keeping: ResponseKeeping;
  readonly #logger: Logger;
  /** Saves under way, by response id. */
  readonly #saving = new Map<string, Promise<boolean>>();

  constructor(store: ResponseStore, keeping: ResponseKeeping, logger: Logger) {
    this.#store = store;
    this.#keeping = keeping;
    this.#logger = logger;
  }

  /** Refuses a request that asks to store while the account's room is already full. */
  async checkRoom(accountId: string): Promise<void> {
    const { maxStoredBytesPerAccount } = this.#keeping;
    if ((await this.#store.storedResponseBytes(accountId)) < maxStoredBytesPerAccount) return;
    throw new ApiError('response_storage_full', {
      param: 'store',
      message: `This account's stored responses fill its ${maxStoredBytesPerAccount} bytes. Delete some (DELETE /v1/responses/{id}), let them expire, or send store: false.`,
    });
  }

  /** True when saved; false when the account's room filled up meanwhile (the reply then says store: false). */
  save(accountId: string, keyId: string, id: string, previousResponseId: string | null, kept: KeptResponse): Promise<boolean> {
    const now = Date.now();
    const record = { id, accountId, keyId, createdAt: now, expiresAt: now + this.#keeping.ttlSeconds * 1000, previousResponseId, body: JSON.stringify(kept) };
    const saving = this.#store.saveResponse(record, this.#keeping.maxStoredBytesPerAccount).then(() => true, (error: unknown) => {
      if (!(error instanceof ResponseStorageFullError)) this.#logger.error({ err: error, responseId: id }, 'a response could not be stored');
      return false;
    }).finally(() => this.#saving.delete(id));
    this.#saving.set(id, saving);
    return saving;
  }

  async find(accountId: string, id: string): Promise<KeptResponse | undefined> {
    await this.#saving.get(id);
    const record = await this.#store.findResponse(accountId, id);
    return record === undefined ? undefined : (JSON.parse(record.body) as KeptResponse);
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    await this.#saving.get(id);
    return this.#store.deleteResponse(accountId, id);
  }
}

export function responseNotFound(id: string, param: string | null): ApiError {
  return new ApiError('response_not_found', { ...(param === null ? {} : { param }), message: `No response with id "${id.slice(0, 128)}" is stored for this account.` });
}
