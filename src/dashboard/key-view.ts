// A key as the dashboard shows it: never the digest, never the full key.
import type { ApiKeyRecord } from '../store/store.ts';

export function keyView(key: ApiKeyRecord) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    lastFour: key.lastFour,
    models: key.models,
    limits: key.limits,
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt,
    revokedAt: key.revokedAt,
    admin: key.admin,
    expiresAt: key.expiresAt ?? null,
    priority: key.priority ?? null,
    cache: key.cache ?? null,
  };
}
