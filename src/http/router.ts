// Exact-path routing (one Map lookup), plus prefix routes for paths with an id. Paths are
// matched as sent: no case folding, no trailing-slash or double-slash normalisation.
import type { ErrorFormat, RequestContext } from './request-context.ts';

/**
 * Returned by a handler that ends the request itself, by calling `ctx.end()` once it has answered
 * (or `ctx.end(error)`): a relayed completion ends in undici's callback, with no promise to settle.
 */
export const ENDS_LATER: unique symbol = Symbol('ends later');

export type HandlerResult = void | typeof ENDS_LATER;
export type Handler = (ctx: RequestContext) => HandlerResult | Promise<HandlerResult>;

export class Route {
  readonly #methods = new Map<string, Handler>();
  allow = '';
  /** The path, or the prefix and `{id}`: a bounded label for metrics and traces. */
  readonly name: string;

  constructor(name: string) {
    this.name = name;
  }

  add(method: string, handler: Handler): void {
    this.#methods.set(method, handler);
    if (method === 'GET') this.#methods.set('HEAD', handler);
    this.allow = [...this.#methods.keys()].join(', ');
  }

  handler(method: string): Handler | undefined {
    return this.#methods.get(method);
  }
}

// uWS reads these in a path as a parameter or a wildcard, not as themselves.
const UWS_PATTERN = /[:*]/;

export class Router {
  readonly #exact = new Map<string, Route>();
  readonly #prefixed: Array<[string, Route, number]> = [];
  /** Paths under which errors of requests no route takes (404, 405) have another API's shape. */
  readonly #errorFormats: Array<[string, ErrorFormat]> = [];

  /** Answers the requests under `path` (itself, or below it) that no route takes in `format`'s shape. */
  formatErrorsUnder(path: string, format: ErrorFormat): this {
    this.#errorFormats.push([path, format]);
    return this;
  }

  /** The error shape of an unrouted request to `path`; null: the API's own. */
  errorFormatOf(path: string): ErrorFormat | null {
    for (const [under, format] of this.#errorFormats) if (path === under || path.startsWith(`${under}/`)) return format;
    return null;
  }

  on(method: string, path: string, handler: Handler): this {
    let route = this.#exact.get(path);
    if (route === undefined) {
      route = new Route(path);
      this.#exact.set(path, route);
    }
    route.add(method, handler);
    return this;
  }

  /**
   * Routes `prefix` + a non-empty segment without a slash (e.g. /v1/models/{id}), or up to `segments`
   * of them (e.g. /v1/responses/{id}/input_items); the handler tells the paths it serves apart.
   */
  onPrefix(method: string, prefix: string, handler: Handler, segments = 1): this {
    let route = this.#prefixed.find(([known]) => known === prefix)?.[1];
    if (route === undefined) {
      route = new Route(`${prefix}{id}`);
      this.#prefixed.push([prefix, route, segments]);
    }
    route.add(method, handler);
    return this;
  }

  /** The exact paths that accept `method`, written as uWS can match them. */
  exactPaths(method: string): string[] {
    const paths: string[] = [];
    for (const [path, route] of this.#exact) {
      if (route.handler(method) !== undefined && !UWS_PATTERN.test(path)) paths.push(path);
    }
    return paths;
  }

  /**
   * For a path that matched nothing: the path the client most likely meant, when one differs only by
   * a doubled or missing /v1 (a base URL that already ends in /v1, or one without it).
   */
  suggest(path: string): string | undefined {
    const candidates = path.startsWith('/v1/v1/') ? [path.slice(3)] : path.startsWith('/v1/') ? [] : [`/v1${path}`];
    return candidates.find((candidate) => this.match(candidate) !== undefined);
  }

  match(path: string): Route | undefined {
    const exact = this.#exact.get(path);
    if (exact !== undefined) return exact;
    for (const [prefix, route, segments] of this.#prefixed) {
      if (path.length > prefix.length && path.startsWith(prefix) && segmentsAfter(path, prefix.length) <= segments) return route;
    }
    return undefined;
  }
}

/** How many non-empty segments `path` has from `start`; an empty one (a doubled or trailing slash) counts as too many. */
function segmentsAfter(path: string, start: number): number {
  let count = 1;
  for (let at = path.indexOf('/', start); at !== -1; at = path.indexOf('/', at + 1)) {
    if (at === start || at === path.length - 1 || path.charCodeAt(at + 1) === 47) return Number.POSITIVE_INFINITY;
    count++;
  }
  return count;
}
