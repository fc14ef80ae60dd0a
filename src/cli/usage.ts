export const USAGE = `Usage: munja <command> [options]

Commands:
  serve                                 Start the gateway.
  keys create --account EMAIL [--name NAME] [--models a,b] [--rpm N] [--tpm N] [--json]
                                        Issue a key (creates the account if needed).
                                        The key is printed once and never again.
  keys list [--account EMAIL] [--json]  List keys (never the secret part).
  keys revoke KEY_ID [--json]           Revoke a key.
  accounts create EMAIL [--json]        Create an account.
  accounts suspend EMAIL [--json]       Refuse every key of an account.
  accounts resume EMAIL [--json]        Lift a suspension.
  accounts admin EMAIL [--revoke] [--json]
                                        Make (or with --revoke, unmake) an admin.
  accounts password EMAIL [--json]      Set the dashboard password, read from standard input.
  help                                  Show this text.

Environment:
  MUNJA_DATA   Data directory holding munja.db (default ./data).

Exit codes: 0 success, 1 not found or failed, 2 usage error.
`;
