// What a config reload changes: the top-level sections that differ between the running config
// and the one just read, which of them a running server takes over, and which wait for a restart.
import type { Config } from './config-types.ts';

/** The sections a reload applies: models and their routing, upstream timeouts, engine signals, limits, cache, MCP origins. */
export const RELOADABLE_SECTIONS = ['models', 'keptDefaultModels', 'upstream', 'engineSignals', 'limits', 'cache', 'mcpAllowedOrigins'] as const satisfies readonly (keyof Config)[];

type ReloadableSection = (typeof RELOADABLE_SECTIONS)[number];
const RELOADABLE: ReadonlySet<string> = new Set(RELOADABLE_SECTIONS);

export interface ConfigChanges {
  /** Every top-level section that differs, in the Config's order (names only: values may be secret). */
  readonly changed: readonly (keyof Config)[];
  /** The changed sections a reload does not apply; they take effect at the next restart. */
  readonly needRestart: readonly (keyof Config)[];
  /** The running config with the reloadable sections of the new one. */
  readonly applied: Config;
}

// Derived from `models` (the default ids kept beside the file's): a change shows there.
const UNREPORTED: ReadonlySet<keyof Config> = new Set(['keptDefaultModels']);

export function configChanges(running: Config, next: Config): ConfigChanges {
  const changed = (Object.keys(next) as (keyof Config)[]).filter((section) => !UNREPORTED.has(section) && !sameValue(running[section], next[section]));
  const taken: Partial<Pick<Config, ReloadableSection>> = {};
  for (const section of RELOADABLE_SECTIONS) (taken as Record<string, unknown>)[section] = next[section];
  return {
    changed,
    needRestart: changed.filter((section) => !RELOADABLE.has(section)),
    applied: Object.freeze({ ...running, ...taken }),
  };
}

/** Whether a section changed: configs are plain data (strings, numbers, booleans, arrays, objects). */
function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
