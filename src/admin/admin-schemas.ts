// The JSON Schemas of the admin API's request bodies: the server validates with them (ajv).
export const MAX_GRACE_SECONDS = 86_400;
export const MAX_KEY_NAME = 64;
const MAX_LIMIT = 1_000_000_000;

const limit = { anyOf: [{ type: 'integer', minimum: 1, maximum: MAX_LIMIT }, { type: 'null' }] } as const;
const models = {
  anyOf: [{ type: 'array', items: { type: 'string', minLength: 1, maxLength: 256 }, maxItems: 1_000 }, { type: 'null' }],
} as const;
const name = { type: 'string', maxLength: MAX_KEY_NAME } as const;
// Unix seconds or ISO-8601 (admin-keys.ts reads it); null: never.
const expiresAt = { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'string', minLength: 1, maxLength: 64 }, { type: 'null' }] } as const;
// An amount in the currency (at most six decimals: admin-record-input.ts checks) per period; null: none of its own.
const budget = {
  anyOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['amount', 'period'],
      properties: { amount: { type: 'number', minimum: 0 }, period: { type: 'string', enum: ['day', 'month', 'total'] } },
    },
    { type: 'null' },
  ],
} as const;
const priority = { anyOf: [{ type: 'string', enum: ['high', 'normal', 'low'] }, { type: 'null' }] } as const;
const cache = { anyOf: [{ type: 'string', enum: ['on', 'off'] }, { type: 'null' }] } as const;

export const CREATE_ACCOUNT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['email'],
  properties: {
    email: { type: 'string', minLength: 3, maxLength: 254 },
    admin: { type: 'boolean' },
  },
} as const;

export const CHANGE_ACCOUNT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    status: { type: 'string', enum: ['active', 'suspended'] },
    admin: { type: 'boolean' },
    budget,
    priority,
    rpm: limit,
    tpm: limit,
  },
} as const;

export const CREATE_KEY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['account'],
  properties: {
    account: { type: 'string', minLength: 1, maxLength: 254 },
    name,
    models,
    rpm: limit,
    tpm: limit,
    admin: { type: 'boolean' },
    expires_at: expiresAt,
    budget,
    priority,
    cache,
  },
} as const;

export const CHANGE_KEY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { name, models, rpm: limit, tpm: limit, expires_at: expiresAt, budget, priority, cache },
} as const;

export const ROTATE_KEY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    grace_seconds: { type: 'integer', minimum: 0, maximum: MAX_GRACE_SECONDS },
  },
} as const;

export interface CreateAccountBody { email: string; admin?: boolean }
export interface BudgetBody { amount: number; period: 'day' | 'month' | 'total' }
/** What keys and accounts carry beside their names and limits; absent: unchanged (or none), null: none. */
export interface RecordFieldsBody {
  expires_at?: number | string | null;
  budget?: BudgetBody | null;
  priority?: 'high' | 'normal' | 'low' | null;
  cache?: 'on' | 'off' | null;
}
export interface ChangeAccountBody {
  status?: 'active' | 'suspended'; admin?: boolean; budget?: BudgetBody | null; priority?: 'high' | 'normal' | 'low' | null; rpm?: number | null; tpm?: number | null;
}
export interface CreateKeyBody extends RecordFieldsBody { account: string; name?: string; models?: string[] | null; rpm?: number | null; tpm?: number | null; admin?: boolean }
export interface ChangeKeyBody extends RecordFieldsBody { name?: string; models?: string[] | null; rpm?: number | null; tpm?: number | null }
export interface RotateKeyBody { grace_seconds?: number }
