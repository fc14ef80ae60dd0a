// A config reload in the primary of several workers: it reads the config first, so that a bad one
// is refused here, with one line, and the workers are not disturbed; a good one is logged and
// audited once, and passed on for every worker to reload.
import type { Config } from '../config/config-types.ts';
import { type Env, loadConfig } from '../config/load-config.ts';
import type { Logger } from '../observability/logger.ts';
import { CLI_ACTOR } from '../store/audit.ts';
import { openStore } from '../store/open-store.ts';
import { auditReload, checkConfig, logReload, type ReloadOutcome } from './config-reload.ts';

/**
 * The primary's SIGHUP handler: true when the workers are to get the signal. With TLS they get it
 * whatever the config says: it re-reads their certificate too.
 */
export function primaryReload(config: Config, env: Env, logger: Logger): () => boolean {
  // What the workers serve: its restart-only settings stay the start's until a restart.
  let running = config;
  return () => {
    const checked = checkConfig(running, () => loadConfig(env));
    let outcome: ReloadOutcome;
    if ('reason' in checked) {
      outcome = { ok: false, reason: checked.reason };
    } else {
      running = checked.changes.applied;
      outcome = { ok: true, changed: checked.changes.changed, needRestart: checked.changes.needRestart };
    }
    logReload(logger, outcome);
    void auditFromPrimary(config, outcome, logger);
    return outcome.ok || config.tls !== null;
  };
}

/** The primary keeps no store open: it opens one for the entry. */
async function auditFromPrimary(config: Config, outcome: ReloadOutcome, logger: Logger): Promise<void> {
  try {
    const store = await openStore(config);
    // oxlint-disable-next-line typescript/no-misused-promises -- finally() waits for the promise it is given
    await auditReload(store, CLI_ACTOR, config.configFile ?? '', outcome, logger).finally(() => store.close());
  } catch (error) {
    logger.warn({ err: error }, 'config reload: the audit entry could not be written');
  }
}
