// GET /v1/admin/audit: the audit log, newest first, filtered by actor, target, action and time
// (`from`, `to`: Unix seconds; from inclusive, to exclusive), paged.
import { ApiError } from '../errors/api-error.ts';
import type { RequestContext } from '../http/request-context.ts';
import type { AuditQuery } from '../store/store.ts';
import { adminCall } from './admin-call.ts';
import type { AdminDeps } from './admin-deps.ts';
import { list, pageRequest } from './admin-paging.ts';
import { auditObject } from './admin-views.ts';

export const AUDIT_PATH = '/v1/admin/audit';
const MAX_FILTER = 254;

export function adminAudit(deps: AdminDeps, ctx: RequestContext): Promise<void> {
  return adminCall(deps, ctx, async () => {
    const query = new URLSearchParams(ctx.query);
    const page = pageRequest(query);
    if (typeof page.after === 'number') throw new ApiError('invalid_value', { param: 'after', message: 'after must be the last_id of a page of this list.' });
    const filter: AuditQuery = {
      limit: page.limit + 1,
      ...textFilter(query, 'actor'), ...textFilter(query, 'target'), ...textFilter(query, 'action'),
      ...timeFilter(query, 'from'), ...timeFilter(query, 'to'),
      ...(page.after === undefined ? {} : { before: page.after }),
    };
    const entries = await deps.store.listAudit(filter);
    const shown = entries.slice(0, page.limit);
    return list(shown.map(auditObject), entries.length > page.limit, shown.at(-1)?.id ?? null);
  });
}

function textFilter(query: URLSearchParams, name: 'actor' | 'target' | 'action'): Partial<AuditQuery> {
  const value = query.get(name);
  if (value === null) return {};
  if (value === '' || value.length > MAX_FILTER) throw new ApiError('invalid_value', { param: name, message: `${name} must be 1 to ${MAX_FILTER} characters.` });
  return { [name]: value };
}

function timeFilter(query: URLSearchParams, name: 'from' | 'to'): Partial<AuditQuery> {
  const value = query.get(name);
  if (value === null) return {};
  if (!/^[0-9]{1,12}$/.test(value)) throw new ApiError('invalid_value', { param: name, message: `${name} must be a time in Unix seconds.` });
  return { [name]: Number(value) * 1000 };
}
