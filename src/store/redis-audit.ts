// The audit log on Redis: one stream (munja:audit), appended with XADD and trimmed to about
// AUDIT_RETENTION entries, read newest first with XREVRANGE. Entry ids are the stream's own.
import type { RedisClient } from './redis-connection.ts';
import { REDIS_PREFIX } from './redis-keys.ts';
import type { AuditEntry, AuditQuery, NewAuditEntry } from './store.ts';

export const AUDIT_STREAM = `${REDIS_PREFIX}audit`;
/** The newest entries kept (about: Redis trims whole stream nodes). docs/admin-api.md documents it. */
export const AUDIT_RETENTION = 100_000;
// Entries read per XREVRANGE while filtering.
const SCAN_BATCH = 500;
const STREAM_ID = /^[0-9]{1,20}-[0-9]{1,20}$/;

export class RedisAudit {
  readonly #client: RedisClient;

  constructor(client: RedisClient) {
    this.#client = client;
  }

  async append(entry: NewAuditEntry): Promise<AuditEntry> {
    const id = await this.#client.xadd(AUDIT_STREAM, 'MAXLEN', '~', AUDIT_RETENTION, '*', 'entry', JSON.stringify(entry));
    if (id === null) throw new Error('XADD returned no id');
    return Object.freeze({ ...entry, id });
  }

  async list(query: AuditQuery): Promise<AuditEntry[]> {
    if (query.before !== undefined && !STREAM_ID.test(query.before)) return [];
    const found: AuditEntry[] = [];
    // Filtered as read: the scan is bounded by the stream's length (the retention).
    let end = query.before === undefined ? '+' : `(${query.before}`;
    for (;;) {
      const batch = await this.#client.xrevrange(AUDIT_STREAM, end, '-', 'COUNT', SCAN_BATCH);
      for (const [id, fields] of batch) {
        const entry = toAuditEntry(id, fields);
        if (entry !== undefined && matches(entry, query)) found.push(entry);
        if (found.length === query.limit) return found;
      }
      if (batch.length < SCAN_BATCH) return found;
      end = `(${batch.at(-1)![0]}`;
    }
  }
}

function toAuditEntry(id: string, fields: string[]): AuditEntry | undefined {
  const text = fields[fields.indexOf('entry') + 1];
  if (text === undefined) return undefined;
  return Object.freeze({ ...(JSON.parse(text) as NewAuditEntry), id });
}

function matches(entry: AuditEntry, query: AuditQuery): boolean {
  return (query.actor === undefined || entry.actor === query.actor)
    && (query.target === undefined || entry.target === query.target)
    && (query.action === undefined || entry.action === query.action)
    && (query.from === undefined || entry.at >= query.from)
    && (query.to === undefined || entry.at < query.to);
}
