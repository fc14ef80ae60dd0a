// What the dashboard's handlers share.
import type { BudgetGate } from '../budget/budget-gate.ts';
import type { Config } from '../config/config-types.ts';
import type { Logger } from '../observability/logger.ts';
import type { Store } from '../store/store.ts';
import type { Mailer } from './mailer.ts';
import type { PasswordHasher } from './password-hasher.ts';
import type { Sessions } from './sessions.ts';
import type { SignInThrottle } from './sign-in-throttle.ts';

export interface DashboardDeps {
  readonly config: Config;
  readonly store: Store;
  readonly logger: Logger;
  readonly sessions: Sessions;
  readonly hasher: PasswordHasher;
  readonly throttle: SignInThrottle;
  /** Set when server.dashboard.signUp is 'email'. */
  readonly mailer: Mailer | null;
  /** Spend budgets, for the keys page; null while none is configured. */
  readonly budgets: BudgetGate | null;
}
