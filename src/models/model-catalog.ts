// Public model ids → what serves them. Built once at start, including the /v1/models body.
import type { ModelConfig } from '../config/config-types.ts';

export interface ResolvedModel {
  /** The id the client asked for (reported back in responses). */
  readonly publicId: string;
  /** The model that serves it (differs from publicId for a route such as `auto`). */
  readonly served: ModelConfig;
}

export class ModelCatalog {
  readonly #byId: Map<string, ModelConfig>;
  readonly #resolved = new Map<string, ResolvedModel>();
  readonly #modelBodies = new Map<string, string>();
  /** The `GET /v1/models` body, serialised once. */
  readonly listBody: string;

  constructor(models: readonly ModelConfig[], createdAt: number = Math.floor(Date.now() / 1000)) {
    this.#byId = new Map(models.map((model) => [model.id, model]));
    const entries = models.map((model) => ({ id: model.id, object: 'model', created: createdAt, owned_by: model.ownedBy }));
    this.listBody = JSON.stringify({ object: 'list', data: entries });
    for (const entry of entries) this.#modelBodies.set(entry.id, JSON.stringify(entry));
    for (const model of models) {
      const served = this.#follow(model);
      if (served) this.#resolved.set(model.id, { publicId: model.id, served });
    }
  }

  get ids(): string[] {
    return [...this.#byId.keys()];
  }

  resolve(id: string): ResolvedModel | undefined {
    return this.#resolved.get(id);
  }

  /** The `GET /v1/models/{id}` body. */
  modelBody(id: string): string | undefined {
    return this.#modelBodies.get(id);
  }

  describe(id: string): ModelConfig | undefined {
    return this.#byId.get(id);
  }

  // Policy "first": the first listed model that can serve. Routes are one level deep (config checks).
  #follow(model: ModelConfig): ModelConfig | undefined {
    if (model.target.kind !== 'route') return model;
    for (const id of model.target.models) {
      const candidate = this.#byId.get(id);
      if (candidate && candidate.target.kind !== 'route') return candidate;
    }
    return undefined;
  }
}
