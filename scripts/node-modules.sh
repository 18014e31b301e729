#!/usr/bin/env bash
# Installs the node modules when there are none (scripts/test.sh and scripts/up.sh run it first).
# npm install, not npm ci: with this machine's omit-lockfile-registry-resolved setting npm records no
# other platforms' optional packages (@swc/core's), so npm ci refuses the lock; --no-save keeps it as is.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ -d node_modules ]] || npm install --no-save --no-audit --no-fund
