#!/usr/bin/env bash
# Installs the node modules when there are none, or when they were installed by another node major or
# from another package.json / package-lock.json (scripts/test.sh, scripts/up.sh and scripts/bench.sh
# run it first, after scripts/node.sh chose the node).
# npm install, not npm ci: with this machine's omit-lockfile-registry-resolved setting npm records no
# other platforms' optional packages (@swc/core's), so npm ci refuses the lock; --no-save keeps it as is.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
STAMP=node_modules/.installed-for
want="node $(node -p 'process.versions.node.split(".")[0]') $(cat package.json package-lock.json | sha1sum | cut -d' ' -f1)"
[[ -d node_modules && "$(cat "$STAMP" 2>/dev/null)" == "$want" ]] && exit 0
npm install --no-save --no-audit --no-fund
echo "$want" >"$STAMP"
