// Lists page like the OpenAI API: `limit` (default 50, 1–500) and `after`, the opaque cursor a page
// answers as `last_id`; `{object: "list", data, has_more, last_id}`.
import { ApiError } from '../errors/api-error.ts';

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 500;

export interface PageRequest {
  readonly limit: number;
  /** What the cursor holds (an offset or a store id), or undefined on the first page. */
  readonly after: string | number | undefined;
}

export function pageRequest(query: URLSearchParams): PageRequest {
  const limitText = query.get('limit');
  const limit = limitText === null ? DEFAULT_PAGE : Number(limitText);
  if (!/^[0-9]{1,3}$/.test(limitText ?? '50') || limit < 1 || limit > MAX_PAGE) {
    throw new ApiError('invalid_value', { param: 'limit', message: `limit must be a whole number from 1 to ${MAX_PAGE}.` });
  }
  const after = query.get('after');
  return { limit, after: after === null ? undefined : decodeCursor(after) };
}

/** The offset a page starts at (0 on the first page). */
export function pageOffset(page: PageRequest): number {
  if (page.after === undefined) return 0;
  if (typeof page.after !== 'number') throw badCursor();
  return page.after;
}

export function list(data: readonly unknown[], hasMore: boolean, lastCursor: string | number | null): Record<string, unknown> {
  return { object: 'list', data, has_more: hasMore, last_id: lastCursor === null || data.length === 0 ? null : encodeCursor(lastCursor) };
}

function encodeCursor(value: string | number): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function decodeCursor(text: string): string | number {
  let value: unknown;
  try {
    value = text.length <= 200 ? JSON.parse(Buffer.from(text, 'base64url').toString()) : undefined;
  } catch {
    value = undefined;
  }
  if (typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0)) return value;
  throw badCursor();
}

function badCursor(): ApiError {
  return new ApiError('invalid_value', { param: 'after', message: 'after must be the last_id of a page of this list.' });
}
