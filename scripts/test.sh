#!/usr/bin/env bash
# The test command (`npm test`, and what .ci/run calls): installs node modules when missing, starts
# the real services (or lets testcontainers start them where a Docker engine answers), installs the
# operations tools, checks the generated types and the compiler, then runs the unit and integration
# suites.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/node-modules.sh

if docker info >/dev/null 2>&1; then
  export USE_TESTCONTAINERS=1
else
  bash scripts/services.sh up
  set -a; eval "$(bash scripts/services.sh env)"; set +a
fi

# helm, kubeconform and its schemas, Prometheus: the chart and dashboard tests fail without them.
bash scripts/services/tools.sh install

node scripts/gen-types.mjs --check
npx tsc --noEmit
npx jest --ci "$@"
