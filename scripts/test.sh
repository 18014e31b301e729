#!/usr/bin/env bash
# The test command (`npm test`, and what .ci/run calls): puts Node 22.19+ first on PATH (scripts/node.sh
# installs Node 24 where the machine's node is older), installs node modules when missing, starts
# the real services (or lets testcontainers start them where a Docker engine answers), installs the
# operations tools, checks the generated types and the compiler, then runs the kinds of tests one by
# one. With CI=true it stops, when it exits (passed, failed or interrupted), the servers it started;
# servers it found running are left alone. Elsewhere they keep running for the next run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node.sh

bash scripts/node-modules.sh

# A CI checkout is deleted after the run: servers left running from it would hold the ports with
# their files gone.
stop_started() {
  local started; started="$(sort -u "$STARTED")"
  rm -f "$STARTED"
  if [[ -n "$started" ]]; then
    echo "stopping the servers this run started: ${started//$'\n'/ }" >&2
    # shellcheck disable=SC2086 # one word a service name
    bash scripts/services.sh down $started
  fi
}

# The drills' private servers (test/support/private-service.ts) live under one root per run: whatever
# an interrupted or crashed test left running there is stopped when the run ends, in CI or not.
LEADS_PRIVATE_ROOT="$(mktemp -d -t lead-intake-private-XXXXXX)"
export LEADS_PRIVATE_ROOT
STARTED=""
on_exit() {
  bash scripts/services.sh down-under "$LEADS_PRIVATE_ROOT" || true
  rm -rf "$LEADS_PRIVATE_ROOT"
  if [[ -n "$STARTED" ]]; then stop_started; fi
}
trap on_exit EXIT

if docker info >/dev/null 2>&1; then
  export USE_TESTCONTAINERS=1
else
  if [[ "${CI:-}" == true ]]; then STARTED="$(mktemp)"; fi
  # Not exported: servers that tests start on their own ports must not be recorded as this run's.
  LEADS_STARTED="$STARTED" bash scripts/services.sh up
  set -a; eval "$(bash scripts/services.sh env)"; set +a
fi

# helm, kubeconform and its schemas, Prometheus, Schemathesis, Chromium: the chart, dashboard, API contract
# and console browser tests fail without them.
bash scripts/services/tools.sh install

node scripts/gen-types.mjs --check
# The pages' types, from the route schemas of the API they read (npm run gen:ui-types).
npx tsx scripts/gen-ui-types.ts --check
# The format check and the compiler side by side (neither reads what the other writes; the format check
# is one core's work for most of a minute): both must pass before any test.
# One format (Prettier, .prettierrc.json): `npm run format` rewrites what this refuses.
npx prettier --check . --log-level warn &
format=$!
# The manager console (src/console) and the partner portal (src/portal/ui) are type-checked and built
# into dist/console and dist/portal-ui, where the manager serves them from and the browser tests open them.
(npx tsc --noEmit && npx tsc -p src/console && npx tsc -p src/portal/ui && node scripts/build-console.mjs) &
compile=$!
checks=0
wait "$format" || checks=1
wait "$compile" || checks=1
if [[ $checks != 0 ]]; then echo "the format check or the compiler failed (above)" >&2; exit 1; fi
# The kinds one after another, those quickest to fail first: unit (pure logic, seconds), store (MongoDB
# only), api, browser, fuzz, drills. Each prints a header and its elapsed seconds, so the log shows where
# the time goes. `npm test -- --selectProjects drills` (or several kinds) runs those kinds the same way;
# any other arguments go to jest as they are.
#
# Two test files at a time: every file has its own topics, database and Redis prefix, and most of an
# integration test is waiting on the servers, so two workers on a 2-core machine take the suite from
# about 15 minutes to about 8 (jest's default here is one). The api kind, most of it waiting on a reply,
# runs four: with three the 2 cores were idle a sixth of the time; four took it from about 9 minutes to
# about 7.5 (its files' times sum to about 27 minutes). The 3-broker failover drill runs alone
# after the other drills: three more brokers and four more role processes starve whatever shares the
# 2 cores with them, and a drill beside it missed group sessions for faults it did not cause.
KINDS=(unit store api browser fuzz drills)
FAILOVER='/drill-broker-failover\.test\.ts$'
kind() {
  local name="$1" began=$SECONDS status=0
  shift
  echo "=== tests: $name" >&2
  "$@" || status=$?
  echo "=== tests: $name took $((SECONDS - began)) s$([[ $status == 0 ]] || echo ", FAILED")" >&2
  return "$status"
}
run_kind() {
  case "$1" in
    store)
      # On the local store, two files at a time like the others (each contract test works in collections
      # of its own), or on MongoDB 7 in Docker (the store kind needs MongoDB only).
      if [[ "${USE_TESTCONTAINERS:-}" == 1 ]]; then
        kind store docker compose -f docker-compose.store.yml run --rm store-contract
        docker compose -f docker-compose.store.yml down --volumes
      else
        kind store npx jest --ci --maxWorkers=2 --selectProjects store
      fi
      ;;
    drills)
      kind drills npx jest --ci --maxWorkers=2 --selectProjects drills --testPathIgnorePatterns "$FAILOVER"
      kind "drills (broker failover, alone)" npx jest --ci --selectProjects drills --testPathPatterns "$FAILOVER"
      ;;
    api) kind api npx jest --ci --maxWorkers=4 --selectProjects api ;;
    *) kind "$1" npx jest --ci --maxWorkers=2 --selectProjects "$1" ;;
  esac
}

selected=()
if [[ "${1:-}" == --selectProjects ]]; then
  shift
  while [[ $# -gt 0 && " ${KINDS[*]} " == *" $1 "* ]]; do
    selected+=("$1")
    shift
  done
fi
if [[ $# -gt 0 ]]; then
  npx jest --ci --maxWorkers=2 ${selected[@]+--selectProjects "${selected[@]}"} "$@"
else
  began=$SECONDS
  for k in "${KINDS[@]}"; do
    if [[ ${#selected[@]} == 0 || " ${selected[*]} " == *" $k "* ]]; then run_kind "$k"; fi
  done
  echo "=== tests: all selected kinds took $((SECONDS - began)) s" >&2
fi
