// One config reload in a serving process (SIGHUP, `munja reload`): read and validate the config
// again; a bad one is refused with one error line and the running one kept; a good one is applied
// for its reloadable sections, with one warning line naming the changed settings that need a restart.
import { type ConfigChanges, configChanges } from '../config/config-changes.ts';
import type { Config } from '../config/config-types.ts';
import type { Logger } from '../observability/logger.ts';
import { type AuditActor, recordAudit } from '../store/audit.ts';
import type { Store } from '../store/store.ts';

export type ReloadOutcome =
  | { readonly ok: true; readonly changed: readonly string[]; readonly needRestart: readonly string[] }
  | { readonly ok: false; readonly reason: string };

export interface Reloadable {
  readonly config: Config;
  reload(next: Config): void;
}

/** Reads the config (read() throws ConfigError when it is bad) and, when it is good, says what changed. */
export function checkConfig(running: Config, read: () => Config): { readonly changes: ConfigChanges } | { readonly reason: string } {
  try {
    return { changes: configChanges(running, read()) };
  } catch (error) {
    // Anything else thrown is refused as well: the server keeps serving what it has.
    return { reason: error instanceof Error ? error.message : String(error) };
  }
}

/** Reloads `target` from `read()`, unless what it reads is bad. */
export function reloadConfig(target: Reloadable, read: () => Config): ReloadOutcome {
  const checked = checkConfig(target.config, read);
  if ('reason' in checked) return { ok: false, reason: checked.reason };
  if (checked.changes.changed.length > 0) target.reload(checked.changes.applied);
  return { ok: true, changed: checked.changes.changed, needRestart: checked.changes.needRestart };
}

/** The outcome's log line; and, for a reload that changed what only a restart applies, a warning naming it. */
export function logReload(logger: Logger, outcome: ReloadOutcome): void {
  if (!outcome.ok) {
    logger.error({ reason: outcome.reason }, 'config reload refused; still serving the previous config');
    return;
  }
  logger.info({ changed: outcome.changed }, 'config reloaded');
  if (outcome.needRestart.length > 0) logger.warn({ sections: outcome.needRestart }, 'config reload: these changed settings take effect at the next restart');
}

/**
 * One audit entry per reload (a refusal's reason stays in the log: a parse error can quote the
 * file, secrets included). Its failure is logged, never thrown: the reload itself is done.
 */
export async function auditReload(store: Pick<Store, 'appendAudit'>, by: AuditActor, target: string, outcome: ReloadOutcome, logger: Logger): Promise<void> {
  try {
    if (outcome.ok) await recordAudit(store, by, 'config.reloaded', target, { changed: outcome.changed, needRestart: outcome.needRestart });
    else await recordAudit(store, by, 'config.reload_refused', target);
  } catch (error) {
    logger.warn({ err: error }, 'config reload: the audit entry could not be written');
  }
}
