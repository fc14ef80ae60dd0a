// GET /v1/models and /v1/models/{id} in Anthropic's shape (ModelInfo, one page), for clients that
// send anthropic-version. The bodies are serialised once, at start, like the OpenAI ones.
import type { ModelConfig } from '../../config/config-types.ts';

export class AnthropicModels {
  /** The whole list, for keys that may use every model. */
  readonly listBody: string;
  readonly #bodies = new Map<string, string>();

  /** `createdAt`: seconds since the epoch, as the OpenAI list reports it. */
  constructor(models: readonly ModelConfig[], createdAt: number) {
    const created = new Date(createdAt * 1000).toISOString();
    for (const model of models) {
      this.#bodies.set(model.id, JSON.stringify({
        type: 'model',
        id: model.id,
        display_name: model.id,
        created_at: created,
        capabilities: null,
        deprecated_at: null,
        lifecycle: 'active',
        line: null,
        max_input_tokens: model.contextTokens,
        max_tokens: model.maxOutputTokens,
        retires_at: null,
      }));
    }
    this.listBody = this.listOf(models.map((model) => model.id));
  }

  modelBody(id: string): string | undefined {
    return this.#bodies.get(id);
  }

  /** A page holding these models (all of them: has_more is false). */
  listOf(ids: readonly string[]): string {
    const first = ids[0];
    const last = ids.at(-1);
    return `{"data":[${ids.map((id) => this.#bodies.get(id)).join(',')}],"has_more":false,"first_id":${JSON.stringify(first ?? null)},"last_id":${JSON.stringify(last ?? null)}}`;
  }
}
