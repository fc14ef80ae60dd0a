// GET /openapi.json (no key): the document, built on the first request and then sent as the same bytes.
import type { RequestContext } from '../http/request-context.ts';
import { send } from '../http/respond.ts';
import { openApiDocument } from './openapi-document.ts';

export const OPENAPI_PATH = '/openapi.json';

let bytes: Buffer | null = null;

export function openApi(ctx: RequestContext): void {
  bytes ??= Buffer.from(JSON.stringify(openApiDocument()));
  send(ctx, 200, bytes);
}
