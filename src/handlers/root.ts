// GET /: someone typed the server's address into a browser. Send them to the dashboard; a program
// following the redirect or reading the body learns where the API is.
import { send } from '../http/respond.ts';
import type { RequestContext } from '../http/request-context.ts';

const BODY = JSON.stringify({ dashboard: '/dashboard', api: '/v1' });
const HEADERS = { location: '/dashboard', 'cache-control': 'no-cache' };

export function root(ctx: RequestContext): void {
  send(ctx, 302, BODY, HEADERS);
}
