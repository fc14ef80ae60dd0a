import type { RequestContext } from '../../http/request-context.ts';

/**
 * The key of a request from Anthropic's clients, as an Authorization value: `x-api-key` (older SDKs,
 * Claude Code with ANTHROPIC_API_KEY) when sent, else the bearer token (the current SDK, Claude
 * Code with ANTHROPIC_AUTH_TOKEN). Either carries a Munja key.
 */
export function anthropicCredential(ctx: RequestContext): string {
  const apiKey = ctx.anthropic?.apiKey ?? '';
  return apiKey === '' ? ctx.authorization : `Bearer ${apiKey}`;
}
