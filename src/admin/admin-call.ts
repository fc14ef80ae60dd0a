// What every admin API call goes through: an admin key (any other key is a 403 admin_required), one
// request from that key's rate limit, and an answer in JSON. Sessions are never read here: a
// request that brings a dashboard session cookie and no key is refused 403 admin_required too.
import { readCookie, sessionCookieName } from '../dashboard/session-cookie.ts';
import { ApiError } from '../errors/api-error.ts';
import { BodyReader } from '../http/body-reader.ts';
import type { RequestContext } from '../http/request-context.ts';
import { send } from '../http/respond.ts';
import { rateLimitError } from '../ratelimit/rate-limit-headers.ts';
import type { AuditActor } from '../store/audit.ts';
import type { AdminDeps } from './admin-deps.ts';

export interface AdminCall {
  /** The admin key's account, as the audit log names it, and the client's address. */
  readonly by: AuditActor;
  /** Null for a GET or DELETE: their bodies are not read. */
  readonly body: BodyReader | null;
}

export async function adminCall(deps: AdminDeps, ctx: RequestContext, work: (call: AdminCall) => Promise<unknown>): Promise<void> {
  // Made before anything is awaited: it takes the body as it arrives.
  const body = ctx.method === 'POST' || ctx.method === 'PATCH' ? new BodyReader(ctx, deps.config) : null;
  if (ctx.authorization.trim() === '' && ctx.dashboard !== null && readCookie(ctx.dashboard.cookie, sessionCookieName(deps.config.dashboard.secureCookies)) !== '') {
    throw new ApiError('admin_required', {
      message: 'The admin API takes an admin key ("Authorization: Bearer sk_munja_…", from munja keys create --admin), not a dashboard session.',
    });
  }
  const principal = await deps.auth.authenticateAdmin(ctx.authorization);
  ctx.keyId = principal.keyId;
  const decision = deps.limiter.tryAcquire(principal, 0) ?? (await deps.limiter.acquire(principal, 0));
  const { lease } = decision;
  if (!decision.allowed || lease === null) throw rateLimitError(decision, 0);
  try {
    const answer = await work({ by: { actor: principal.accountId, address: ctx.clientAddress }, body });
    send(ctx, 200, JSON.stringify(answer));
  } finally {
    void deps.limiter.settle(lease, 0);
  }
}
