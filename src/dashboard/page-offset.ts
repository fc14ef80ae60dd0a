// Lists the dashboard answers a page at a time: `/…/things` is the first page and
// `/…/things/page/OFFSET` the one starting after OFFSET items (the router passes such paths whole).
import { ApiError } from '../errors/api-error.ts';

const OFFSET = /^\/page\/(0|[1-9]\d{0,8})$/;

/** The offset in `base/page/OFFSET`; 0 for `base` itself. */
export function pageOffset(path: string, base: string): number {
  if (path === base) return 0;
  const match = OFFSET.exec(path.slice(base.length));
  if (match === null) throw new ApiError('unknown_route', { message: `No dashboard endpoint ${path.slice(0, 200)}; pages are ${base}/page/OFFSET.` });
  return Number(match[1]);
}
