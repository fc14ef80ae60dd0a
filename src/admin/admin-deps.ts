import type { Authenticator } from '../auth/authenticator.ts';
import type { ResponseCache } from '../cache/response-cache.ts';
import type { Config } from '../config/config-types.ts';
import type { Limiter } from '../ratelimit/limiter.ts';
import type { Store } from '../store/store.ts';

export interface AdminDeps {
  readonly config: Config;
  readonly store: Store;
  readonly auth: Authenticator;
  readonly limiter: Limiter;
  /** The response cache in use now (a config reload may replace it), for its purges; null when it is off. */
  readonly cache: () => ResponseCache | null;
}
