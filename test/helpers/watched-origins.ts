// The origins of the services the tests start: the API lane checks every answer they give against
// the OpenAPI document (test/helpers/openapi-fetch-check.ts).
export const watchedOrigins = new Set<string>();

export function watchOrigin(origin: string): void {
  watchedOrigins.add(origin);
}
