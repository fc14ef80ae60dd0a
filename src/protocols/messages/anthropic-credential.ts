import { missingKey, notBearer } from '../../auth/key-refusals.ts';
import type { RequestContext } from '../../http/request-context.ts';

/**
 * The key of a request from Anthropic's clients, as an Authorization value: `x-api-key` (older SDKs,
 * Claude Code with ANTHROPIC_API_KEY) when sent, else the bearer token (the current SDK, Claude
 * Code with ANTHROPIC_AUTH_TOKEN). Either carries a Munja key.
 */
export function anthropicCredential(ctx: RequestContext): string {
  const apiKey = ctx.anthropic?.apiKey ?? '';
  if (apiKey !== '') return `Bearer ${apiKey}`;
  // Refused here, in words that name this API's header too; a key in either is checked as usual.
  const authorization = ctx.authorization.trim();
  if (authorization === '') throw missingKey(true);
  if (!/^bearer /i.test(authorization)) throw notBearer(true);
  return ctx.authorization;
}
