// GET /dashboard and its page paths answer with the shell (the page's script renders the view);
// hashed assets answer from memory. Anything else under /dashboard/ is a 404.
import { ApiError } from '../errors/api-error.ts';
import type { DashboardHeaders, RequestContext } from '../http/request-context.ts';
import { send } from '../http/respond.ts';
import { type DashboardRequest, SECURITY_HEADERS } from './dashboard-http.ts';
import type { StaticFile, StaticFiles } from './static-files.ts';

export const DASHBOARD_PAGES: ReadonlySet<string> = new Set(['sign-in', 'sign-up', 'verify', 'keys', 'usage', 'quickstart', 'account', 'admin', 'service-usage']);

export function servePage(files: StaticFiles, { ctx, headers }: DashboardRequest): void {
  const name = ctx.path.slice('/dashboard/'.length);
  const file = name === '' || DASHBOARD_PAGES.has(name) ? files.shell : files.asset(name);
  if (file === undefined) throw new ApiError('unknown_route', { message: `No dashboard page ${ctx.path.slice(0, 200)}.` });
  serveFile(ctx, headers, file);
}

function serveFile(ctx: RequestContext, headers: DashboardHeaders, file: StaticFile): void {
  const fileHeaders = { ...SECURITY_HEADERS, 'cache-control': file.cacheControl, etag: file.etag };
  if (headers.ifNoneMatch === file.etag) {
    send(ctx, 304, '', fileHeaders, { contentType: file.contentType });
    return;
  }
  send(ctx, 200, file.body, fileHeaders, { contentType: file.contentType });
}
