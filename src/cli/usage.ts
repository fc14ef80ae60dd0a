// Help texts: `munja help` shows every command, `munja keys --help` the keys commands, and
// `munja keys create --help` that one command.
import { editDistance } from '../config/edit-distance.ts';
import { ENVIRONMENT_SETTINGS } from '../config/environment-settings.ts';
import { DEFAULT_DATA_DIR } from '../config/load-config.ts';

interface CommandHelp {
  readonly name: string;
  readonly synopsis: string;
  readonly description: string;
}

const COMMANDS: readonly CommandHelp[] = [
  { name: 'serve', synopsis: 'serve', description: 'Start the gateway (settings from the environment: see docs/configuration.md).' },
  {
    name: 'keys create',
    synopsis: 'keys create --account EMAIL [--name NAME] [--models a,b] [--rpm N] [--tpm N] [--admin]\n'
      + '        [--budget AMOUNT --budget-period day|month|total] [--priority high|normal|low] [--cache on|off]\n'
      + '        [--expires-at ISO-8601 | --expires-in 30d] [--json]',
    description: 'Issue a key (creates the account if needed). The key is printed once and never again.\n'
      + '--models: ids from the configured models (GET /v1/models); default: all.\n'
      + '--admin: a key for the admin API (/v1/admin/…, docs/admin-api.md), refused everywhere else.\n'
      + '--budget: in the currency (budgets.currency), e.g. 5 or 0.25. --expires-in: s, m, h or d.',
  },
  {
    name: 'keys update',
    synopsis: 'keys update KEY_ID [--name NAME] [--models a,b|none] [--rpm N|none] [--tpm N|none] [--budget AMOUNT|none\n'
      + '        --budget-period P] [--priority P|none] [--cache on|off|none] [--expires-at ISO-8601|none | --expires-in 30d] [--json]',
    description: 'Change a key that is not revoked; what is not given stays, none clears it.',
  },
  { name: 'keys list', synopsis: 'keys list [--account EMAIL] [--json]', description: 'List keys (never the secret part).' },
  { name: 'keys revoke', synopsis: 'keys revoke KEY_ID [--json]', description: "Revoke a key by its id (key_…, from 'munja keys list')." },
  { name: 'accounts list', synopsis: 'accounts list [--json]', description: 'List accounts, with their status and active keys.' },
  { name: 'accounts create', synopsis: 'accounts create EMAIL [--json]', description: 'Create an account.' },
  { name: 'accounts suspend', synopsis: 'accounts suspend EMAIL [--json]', description: 'Refuse every key of an account.' },
  { name: 'accounts resume', synopsis: 'accounts resume EMAIL [--json]', description: 'Lift a suspension.' },
  { name: 'accounts admin', synopsis: 'accounts admin EMAIL [--revoke] [--json]', description: 'Make (or with --revoke, unmake) an admin.' },
  {
    name: 'accounts budget',
    synopsis: 'accounts budget EMAIL (--amount N --period day|month|total | --clear) [--json]',
    description: "The budget the account's keys share, in the currency (budgets.currency); --clear removes it.",
  },
  {
    name: 'accounts priority',
    synopsis: 'accounts priority EMAIL high|normal|low|none [--json]',
    description: "The admission priority of the account's keys (a key's own --priority wins); none: the default.",
  },
  {
    name: 'accounts password',
    synopsis: 'accounts password EMAIL [--json]',
    description: "Set the dashboard password: typed at the prompt, or piped (printf '%s' \"$PASSWORD\" | munja accounts password EMAIL).",
  },
  {
    name: 'usage',
    synopsis: 'usage [--account EMAIL] [--days N] [--by key|model|account|day] [--json]',
    description: 'Requests, tokens and spend over the last N days (default 30, UTC), with the total.\n'
      + '--by: per key (default), per model asked for, per account or per day. Spend is in budgets.currency.',
  },
  {
    name: 'audit',
    synopsis: 'audit [--actor ID] [--target ID] [--action NAME] [--limit N] [--json]',
    description: "The audit log, newest first (default 50 entries): who changed which account or key, and how.\n"
      + "--actor: an account id, or 'cli'. --action: e.g. key.rotated (docs/admin-api.md lists them).",
  },
  {
    name: 'cache purge',
    synopsis: 'cache purge (--account EMAIL | --key KEY_ID | --all) [--json]',
    description: 'Drop cached replies from the response cache on Redis (REDIS_URL): an account\'s, those a key filled, or all.',
  },
  {
    name: 'reload',
    synopsis: 'reload [--pid PID]',
    description: 'Make the server running on this machine reload its config file (SIGHUP to the process in MUNJA_DATA/munja.pid).\n'
      + 'A bad config is refused and the running one kept; the server\'s log says which (docs/operations.md).',
  },
  { name: 'help', synopsis: 'help [COMMAND]', description: 'Show this text (also: --help after any command).' },
  { name: 'version', synopsis: '--version', description: 'Show the version.' },
];

const FOOTER = `
Environment:
  MUNJA_DATA   Data directory holding munja.db (default ${DEFAULT_DATA_DIR}).
  REDIS_URL    Use the Redis store instead (the servers' value).
  MUNJA_CONFIG The config file (its models are what --models accepts).

Exit codes: 0 success, 1 not found or failed, 2 usage error.
`;

const NAME_WIDTH = Math.max(...ENVIRONMENT_SETTINGS.map((setting) => setting.name.length)) + 1;
const SERVE_SETTINGS = `
Settings (environment; docs/configuration.md describes each, and the config file):
${ENVIRONMENT_SETTINGS.map((setting) => `  ${setting.name.padEnd(NAME_WIDTH)}${setting.purpose} (default: ${setting.fallback})`).join('\n')}
`;

/** Help for `munja`, a command group (`keys`) or one command (`keys create`). */
export function helpText(topic = ''): string {
  if (topic === 'serve') return `${helpLines(topic)}\n${SERVE_SETTINGS}`;
  return `${helpLines(topic)}\n${FOOTER}`;
}

function helpLines(topic: string): string {
  const chosen = topic === '' ? COMMANDS : COMMANDS.filter((command) => command.name === topic || command.name.startsWith(`${topic} `));
  const lines = ['Usage: munja <command> [options]', '', topic === '' ? 'Commands:' : 'Command' + (chosen.length > 1 ? 's:' : ':')];
  for (const command of chosen) {
    lines.push(`  munja ${command.synopsis}`);
    for (const line of command.description.split('\n')) lines.push(`      ${line}`);
  }
  return lines.join('\n');
}

/** True when `topic` names a command or a group of them. */
export function isHelpTopic(topic: string): boolean {
  return COMMANDS.some((command) => command.name === topic || command.name.startsWith(`${topic} `));
}

// What people type for `serve` out of habit from other tools.
const SERVE_SYNONYMS = new Set(['start', 'run', 'server', 'up', 'listen']);

/** The command a mistyped one most likely meant, if any. */
export function commandMeant(typed: string): string | undefined {
  if (SERVE_SYNONYMS.has(typed)) return 'serve';
  const words = new Set(COMMANDS.map((command) => command.name.split(' ')[0]!));
  return [...words].find((word) => editDistance(word, typed) <= 2);
}
