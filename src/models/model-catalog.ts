// Public model ids → what serves them. Built once at start, including the /v1/models body.
import type { ModelConfig, RoutePolicy } from '../config/config-types.ts';

export interface ResolvedModel {
  /** The id the client asked for (reported back in responses). */
  readonly publicId: string;
  /** The models that may serve it, in preference order: itself, or a route's models. */
  readonly candidates: readonly ModelConfig[];
  /** How a route picks among its candidates; null for a model that serves itself. */
  readonly policy: RoutePolicy | null;
}

export class ModelCatalog {
  readonly #byId: Map<string, ModelConfig>;
  readonly #resolved = new Map<string, ResolvedModel>();
  readonly #modelBodies = new Map<string, string>();
  /** The `GET /v1/models` body, serialised once. */
  readonly listBody: string;
  /** Seconds since the epoch: every model's `created`. */
  readonly createdAt: number;

  constructor(models: readonly ModelConfig[], createdAt: number = Math.floor(Date.now() / 1000)) {
    this.createdAt = createdAt;
    this.#byId = new Map(models.map((model) => [model.id, model]));
    const entries = models.map((model) => ({ id: model.id, object: 'model', created: createdAt, owned_by: model.ownedBy }));
    this.listBody = JSON.stringify({ object: 'list', data: entries });
    for (const entry of entries) this.#modelBodies.set(entry.id, JSON.stringify(entry));
    for (const model of models) {
      if (model.target.kind !== 'route') {
        this.#resolved.set(model.id, { publicId: model.id, candidates: [model], policy: null });
        continue;
      }
      // Routes are one level deep (the config loader checks).
      const candidates = model.target.models.map((id) => this.#byId.get(id)).filter((candidate): candidate is ModelConfig => candidate !== undefined && candidate.target.kind !== 'route');
      if (candidates.length > 0) this.#resolved.set(model.id, { publicId: model.id, candidates, policy: model.target.policy });
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
}
