// The admin API's paths (/v1/admin/…, docs/admin-api.md): every operation needs an admin key.
import { ACCOUNT_PATH_PREFIX, ACCOUNTS_PATH } from '../admin/admin-accounts.ts';
import { AUDIT_PATH } from '../admin/admin-audit.ts';
import { CACHE_PATH } from '../admin/admin-cache.ts';
import { KEY_PATH_PREFIX, KEYS_PATH } from '../admin/admin-keys.ts';
import { MAX_PAGE } from '../admin/admin-paging.ts';
import { USAGE_PATH } from '../admin/admin-usage.ts';
import { json, operation, pathId, query } from './operation.ts';

const accounts = 'Admin: accounts';
const keys = 'Admin: keys';
const reports = 'Admin: usage and audit';

const paging = [
  query('limit', `1 to ${MAX_PAGE} (default 50).`, { type: 'integer', minimum: 1, maximum: MAX_PAGE }),
  query('after', 'The `last_id` of the previous page.'),
];
const accountId = pathId('id', 'An account id (`acct_…`).');
const keyId = pathId('id', 'A key id.');

export const ADMIN_PATHS = {
  [ACCOUNTS_PATH]: {
    post: operation({
      operationId: 'adminCreateAccount', summary: 'Create an account (an existing email answers its account unchanged)', tag: accounts, access: 'admin',
      body: 'CreateAccountRequest', answers: { 200: json('The account.', 'Account') },
    }),
    get: operation({
      operationId: 'adminListAccounts', summary: 'List accounts, oldest first', tag: accounts, access: 'admin', parameters: paging,
      answers: { 200: json('A page of accounts.', 'AccountList') },
    }),
  },
  [`${ACCOUNT_PATH_PREFIX}{id}`]: {
    get: operation({
      operationId: 'adminReadAccount', summary: 'Read an account', tag: accounts, access: 'admin', parameters: [accountId],
      answers: { 200: json('The account.', 'Account') }, errors: [404],
    }),
    patch: operation({
      operationId: 'adminChangeAccount', summary: "Suspend or resume an account, grant or take the admin role, set its budget, priority or its keys' shared limits", tag: accounts, access: 'admin',
      parameters: [accountId], body: 'ChangeAccountRequest', answers: { 200: json('The account as it is now.', 'Account') }, errors: [404],
    }),
  },
  [KEYS_PATH]: {
    post: operation({
      operationId: 'adminCreateKey', summary: 'Create a key for an account', tag: keys, access: 'admin', body: 'CreateKeyRequest',
      answers: { 200: json('The key, with its secret (shown only here and on rotation).', 'ApiKeyWithSecret') }, errors: [404],
    }),
    get: operation({
      operationId: 'adminListKeys', summary: "List one account's keys, revoked ones included", tag: keys, access: 'admin',
      parameters: [{ ...query('account', 'An account id or email.'), required: true }, ...paging],
      answers: { 200: json('A page of keys.', 'ApiKeyList') }, errors: [404],
    }),
  },
  [`${KEY_PATH_PREFIX}{id}`]: {
    get: operation({
      operationId: 'adminReadKey', summary: 'Read a key', tag: keys, access: 'admin', parameters: [keyId],
      answers: { 200: json('The key.', 'ApiKey') }, errors: [404],
    }),
    patch: operation({
      operationId: 'adminChangeKey', summary: "Change a key's name, models, limits, expiry, budget, priority or cache setting", tag: keys, access: 'admin', parameters: [keyId],
      body: 'ChangeKeyRequest', answers: { 200: json('The key as it is now.', 'ApiKey') }, errors: [404],
    }),
    delete: operation({
      operationId: 'adminRevokeKey', summary: 'Revoke a key', tag: keys, access: 'admin', parameters: [keyId],
      answers: { 200: json('The revoked key.', 'ApiKey') }, errors: [404],
    }),
  },
  [`${KEY_PATH_PREFIX}{id}/rotate`]: {
    post: operation({
      operationId: 'adminRotateKey', summary: 'A new secret for a key; the old one works for grace_seconds', tag: keys, access: 'admin',
      parameters: [keyId], body: 'RotateKeyRequest', answers: { 200: json('The key, with its new secret.', 'ApiKeyWithSecret') }, errors: [404],
    }),
  },
  [USAGE_PATH]: {
    get: operation({
      operationId: 'adminUsage', summary: 'Requests, tokens and spend per key, day (UTC) and model', tag: reports, access: 'admin',
      parameters: [
        query('account', 'An account id or email.'),
        query('key', 'A key id.'),
        query('model', 'Only this model id (as clients asked for it).'),
        query('from', 'First day, YYYY-MM-DD (default: 29 days before `to`).', { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
        query('to', 'Last day, YYYY-MM-DD (default: today).', { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
        ...paging,
      ],
      answers: { 200: json('A page of usage rows.', 'UsageDayList') }, errors: [404],
    }),
  },
  [CACHE_PATH]: {
    delete: operation({
      operationId: 'adminPurgeCache', summary: 'Drop replies from the response cache: an account\'s, those a key stored, or all', tag: reports, access: 'admin',
      parameters: [
        query('account', 'An account id or email.'),
        query('key', 'A key id: the replies its requests stored.'),
        query('all', '`true`: every reply.', { enum: ['true'] }),
      ],
      answers: { 200: json('How many replies were dropped.', 'CachePurge') }, errors: [404],
    }),
  },
  [AUDIT_PATH]: {
    get: operation({
      operationId: 'adminAudit', summary: 'The audit log, newest first', tag: reports, access: 'admin',
      parameters: [
        query('actor', 'Only entries by this actor.'),
        query('target', 'Only entries about this target.'),
        query('action', 'Only entries of this action, as `key.created`.'),
        query('from', 'From this time (Unix seconds, inclusive).', { type: 'integer', minimum: 0 }),
        query('to', 'Before this time (Unix seconds).', { type: 'integer', minimum: 0 }),
        ...paging,
      ],
      answers: { 200: json('A page of audit entries.', 'AuditEntryList') },
    }),
  },
};
