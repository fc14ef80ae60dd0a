// list_models: what GET /v1/models shows this key, plus what a caller needs to choose a model
// and its max_tokens (descriptions and limits; a route such as `auto` reports the smallest limits
// among the models it may pick, since any of them may serve the call).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/authenticator.ts';
import type { ModelCatalog } from '../models/model-catalog.ts';
import { toolResult } from './tool-results.ts';

export function allowedModelIds(catalog: ModelCatalog, principal: Principal): string[] {
  const allowed = principal.models;
  return allowed === null ? catalog.ids : catalog.ids.filter((id) => allowed.has(id));
}

export function listModelsTool(catalog: ModelCatalog, principal: Principal): CallToolResult {
  const models = [];
  for (const id of allowedModelIds(catalog, principal)) {
    const candidates = catalog.resolve(id)?.candidates;
    if (candidates === undefined) continue;
    models.push({
      id,
      description: catalog.describe(id)?.description ?? '',
      context_tokens: Math.min(...candidates.map((model) => model.contextTokens)),
      max_output_tokens: Math.min(...candidates.map((model) => model.maxOutputTokens)),
    });
  }
  const lines = models.map((model) => {
    const description = model.description === '' ? '' : ` — ${model.description}`;
    return `${model.id}${description} (context ${model.context_tokens} tokens, max_tokens up to ${model.max_output_tokens})`;
  });
  const text = lines.length === 0 ? 'This key may not use any model.' : lines.join('\n');
  return toolResult(text, { models });
}
