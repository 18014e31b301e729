#!/usr/bin/env bash
# `npm run bench`: the benchmarks (bench/README.md) on the node scripts/node.sh chooses, the same one
# the tests and the stack run on. The roles are spawned with the bench's own node (process.execPath).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node.sh
bash scripts/node-modules.sh
exec node_modules/.bin/tsx bench/run.ts "$@"
