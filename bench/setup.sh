#!/usr/bin/env bash
# Installs what `npm run bench` compares Munja with, and never anything the project itself needs:
# nginx (Debian's nginx-light) and wrk from apt, redis-server for the Redis-limiter runs, and the
# Portkey gateway into bench/peers/ from its own package.json and lock file. Run as root (apt), from
# anywhere; safe to run again. `npm run bench` skips, and reports, any peer that is missing.
set -euo pipefail
cd "$(dirname "$0")"

missing=()
command -v nginx >/dev/null 2>&1 || missing+=(nginx-light)
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v taskset >/dev/null 2>&1 || missing+=(util-linux)
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update
  # Debian starts a freshly installed nginx as a service where it can; the bench never uses that
  # one (it runs its own from a generated config), so a policy that blocks service starts is fine.
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

# The gateway's own postinstall (patch-package) has no patches to apply in the published package.
(cd peers && npm ci --no-audit --no-fund)
echo "bench setup: nginx $(nginx -v 2>&1 | sed 's/.*nginx\///'), $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2), $(redis-server --version | cut -d' ' -f3), Portkey gateway $(node -p "require('./peers/node_modules/@portkey-ai/gateway/package.json').version")"
