// The admin API's objects (admin-views.ts makes them): snake_case, times in Unix seconds. Objects
// admit more properties than listed, so that a field added to a view is not a breaking change.

const time = { type: ['integer', 'null'], description: 'Unix seconds.' } as const;
const budget = {
  type: ['object', 'null'],
  required: ['amount', 'period', 'currency'],
  properties: { amount: { type: 'number', minimum: 0 }, period: { enum: ['day', 'month', 'total'] }, currency: { type: 'string' } },
  description: 'null: none of its own (the config decides).',
} as const;
const priority = { enum: ['high', 'normal', 'low', null], description: 'The admission priority; null: the default.' } as const;
const limit = { type: ['integer', 'null'], minimum: 1 } as const;

export const ACCOUNT_SCHEMA = {
  type: 'object',
  required: ['object', 'id', 'email', 'status', 'admin', 'created_at', 'budget', 'priority', 'rpm', 'tpm'],
  properties: {
    object: { const: 'account' },
    id: { type: 'string' },
    email: { type: 'string' },
    status: { enum: ['active', 'suspended'] },
    admin: { type: 'boolean' },
    created_at: time,
    budget,
    priority,
    rpm: { ...limit, description: "The buckets the account's keys share; null: the config's." },
    tpm: limit,
  },
} as const;

export const API_KEY_SCHEMA = {
  type: 'object',
  required: [
    'object', 'id', 'account', 'name', 'prefix', 'last_four', 'models', 'rpm', 'tpm', 'admin', 'created_at', 'last_used_at', 'revoked_at',
    'expires_at', 'budget', 'priority', 'cache',
  ],
  properties: {
    object: { const: 'api_key' },
    id: { type: 'string' },
    account: { type: 'string' },
    name: { type: 'string' },
    prefix: { type: 'string' },
    last_four: { type: 'string' },
    models: { type: ['array', 'null'], items: { type: 'string' }, description: 'null: every model.' },
    rpm: { type: ['integer', 'null'] },
    tpm: { type: ['integer', 'null'] },
    admin: { type: 'boolean' },
    created_at: time,
    last_used_at: time,
    revoked_at: time,
    expires_at: { ...time, description: 'Unix seconds; from then on the key is refused. null: never.' },
    budget,
    priority,
    cache: { enum: ['on', 'off', null], description: 'on: cached on any model; off: never cached; null: the model and the header decide.' },
  },
} as const;

/** A created or rotated key: the only answers that carry its secret. */
export const API_KEY_WITH_SECRET_SCHEMA = {
  allOf: [{ $ref: '#/components/schemas/ApiKey' }, { type: 'object', required: ['secret'], properties: { secret: { type: 'string', pattern: '^sk_' } } }],
} as const;

export const USAGE_DAY_SCHEMA = {
  type: 'object',
  required: ['object', 'day', 'account', 'key', 'model', 'requests', 'prompt_tokens', 'completion_tokens', 'cost', 'cost_micros', 'currency'],
  properties: {
    object: { const: 'usage.day' },
    day: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    account: { type: ['string', 'null'] },
    key: { type: 'string' },
    requests: { type: 'integer', minimum: 0 },
    prompt_tokens: { type: 'integer', minimum: 0 },
    completion_tokens: { type: 'integer', minimum: 0 },
    model: { type: ['string', 'null'], description: 'The model id the client asked for; null for usage counted before usage was kept per model.' },
    cost: { type: 'number', minimum: 0, description: 'In `currency`.' },
    cost_micros: { type: 'integer', minimum: 0, description: 'The cost in millionths of `currency`, exact.' },
    currency: { type: 'string' },
  },
} as const;

export const CACHE_PURGE_SCHEMA = {
  type: 'object',
  required: ['object', 'purged'],
  properties: { object: { const: 'cache.purge' }, purged: { type: 'integer', minimum: 0, description: 'How many cached replies were dropped.' } },
} as const;

export const AUDIT_ENTRY_SCHEMA = {
  type: 'object',
  required: ['object', 'id', 'time', 'actor', 'action', 'target'],
  properties: {
    object: { const: 'audit.entry' },
    id: { type: 'string' },
    time: { type: 'string', format: 'date-time' },
    actor: { type: 'string', description: 'The account that acted, or `cli`.' },
    address: { type: ['string', 'null'], description: "The client's address; null from the command line." },
    action: { type: 'string' },
    target: { type: 'string' },
    fields: { type: 'object' },
  },
} as const;

/** A page of `item`s; `last_id` is the cursor of the next page (`after`). */
export function listSchema(item: string): Record<string, unknown> {
  return {
    type: 'object',
    required: ['object', 'data', 'has_more', 'last_id'],
    properties: {
      object: { const: 'list' },
      data: { type: 'array', items: { $ref: `#/components/schemas/${item}` } },
      has_more: { type: 'boolean' },
      last_id: { type: ['string', 'null'] },
    },
  };
}
