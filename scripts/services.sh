#!/usr/bin/env bash
# Installs (when missing) and runs the real servers the pipeline needs, on loopback:
# Kafka (KRaft), FerretDB (MongoDB wire protocol), Redis, Apicurio (Confluent registry API) and
# Mailpit (an SMTP server that keeps the mail it accepts, with a web page and an API to read it).
#   scripts/services.sh up            install what is missing, start everything, wait until each answers;
#                                     a server left behind by a deleted checkout on one of the ports is replaced
#   scripts/services.sh down [NAME..] stop everything (or the named services: redis ferretdb kafka registry mailpit)
#   scripts/services.sh status        one line a service: port, pid, state, checkout; exit 0 only when all are healthy
#   scripts/services.sh env           print the environment variables that point at them
#   scripts/services.sh down-under DIR stop every server of ours whose run dir lies under DIR (the
#                                     drills' private servers of one test run), whatever its port
# Exits non-zero, naming the service, when one cannot be installed or started.
set -euo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/services"
SERVICES=(redis ferretdb kafka registry mailpit)
declare -A PORT=([redis]="${REDIS_PORT:-6379}" [ferretdb]="${MONGO_PORT:-27017}" [kafka]="${KAFKA_PORT:-9092}" [registry]="${REGISTRY_PORT:-8081}" [mailpit]="${SMTP_PORT:-1025}")
# Mailpit's second port: its web page and the API the tests read mail through.
MAILPIT_PORT="${MAILPIT_PORT:-8025}"

print_env() {
  cat <<ENV
KAFKA_BROKERS=127.0.0.1:${PORT[kafka]}
MONGO_URL=mongodb://127.0.0.1:${PORT[ferretdb]}
REDIS_URL=redis://127.0.0.1:${PORT[redis]}
SCHEMA_REGISTRY_URL=http://127.0.0.1:${PORT[registry]}/apis/ccompat/v7
SMTP_URL=smtp://127.0.0.1:${PORT[mailpit]}
MAILPIT_URL=http://127.0.0.1:${MAILPIT_PORT}
ENV
}

# healthy: answers; orphaned: answers, but its checkout is deleted (its files are gone);
# unhealthy: something listens and does not answer; down: nothing listens.
print_status() {
  # shellcheck source=scripts/services/lib.sh
  source "$DIR/lib.sh"
  local s pid state owner rc=0
  printf '%-9s %-6s %-8s %-9s %s\n' service port pid state checkout
  for s in "${SERVICES[@]}"; do
    pid="$(listener_pid "${PORT[$s]}")"
    owner="$(if [[ -n "$pid" ]]; then owner_of "$pid"; else echo -; fi)"
    if bash "$DIR/$s.sh" status >/dev/null 2>&1; then
      state=healthy; [[ "$owner" == deleted:* ]] && state=orphaned
    elif port_open "${PORT[$s]}"; then state=unhealthy
    else state=down; fi
    [[ "$state" == healthy ]] || rc=1
    printf '%-9s %-6s %-8s %-9s %s\n' "$s" "${PORT[$s]}" "${pid:--}" "$state" "$owner"
  done
  return $rc
}

case "${1:-}" in
  up)
    # Installs run one after another (apt and mvn do not like company); starts run in parallel.
    for s in "${SERVICES[@]}"; do bash "$DIR/$s.sh" install || { echo "services: installing $s failed" >&2; exit 1; }; done
    pids=()
    for s in "${SERVICES[@]}"; do bash "$DIR/$s.sh" start & pids+=("$!"); done
    failed=0
    for i in "${!pids[@]}"; do
      wait "${pids[$i]}" || { echo "services: ${SERVICES[$i]} did not start" >&2; failed=1; }
    done
    ((failed == 0)) || exit 1
    ;;
  down)
    shift
    (($#)) || set -- "${SERVICES[@]}"
    for s in "$@"; do
      [[ -n "${PORT[$s]:-}" ]] || { echo "services: no service named $s" >&2; exit 2; }
      bash "$DIR/$s.sh" stop || true
    done
    ;;
  down-under)
    root="$(cd "${2:?down-under needs a directory}" 2>/dev/null && pwd)" || exit 0
    # shellcheck source=scripts/services/lib.sh
    source "$DIR/lib.sh"
    for environ in /proc/[0-9]*/environ; do
      pid="${environ#/proc/}"; pid="${pid%/environ}"
      [[ -O "/proc/$pid" ]] || continue
      [[ "$(run_dir_of "$pid")/" == "$root"/* ]] && { echo "services: stopping pid $pid left under $root" >&2; stop_process "$pid"; }
    done
    ;;
  status) print_status ;;
  env) print_env ;;
  *) echo "usage: $0 up|down [NAME...]|down-under DIR|status|env" >&2; exit 2 ;;
esac
