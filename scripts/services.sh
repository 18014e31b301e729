#!/usr/bin/env bash
# Installs (when missing) and runs the real servers the pipeline needs, on loopback:
# Kafka (KRaft), FerretDB (MongoDB wire protocol), Redis and Apicurio (Confluent registry API).
#   scripts/services.sh up       install what is missing, start everything, wait until each answers
#   scripts/services.sh down     stop everything
#   scripts/services.sh status   exit 0 only when every service answers
#   scripts/services.sh env      print the environment variables that point at them
# Exits non-zero, naming the service, when one cannot be installed or started.
set -euo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/services"
SERVICES=(redis ferretdb kafka registry)

print_env() {
  cat <<ENV
KAFKA_BROKERS=127.0.0.1:${KAFKA_PORT:-9092}
MONGO_URL=mongodb://127.0.0.1:${MONGO_PORT:-27017}
REDIS_URL=redis://127.0.0.1:${REDIS_PORT:-6379}
SCHEMA_REGISTRY_URL=http://127.0.0.1:${REGISTRY_PORT:-8081}/apis/ccompat/v7
ENV
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
  down) for s in "${SERVICES[@]}"; do bash "$DIR/$s.sh" stop || true; done ;;
  status)
    rc=0
    for s in "${SERVICES[@]}"; do
      if bash "$DIR/$s.sh" status >/dev/null 2>&1; then echo "$s: up"; else echo "$s: down"; rc=1; fi
    done
    exit $rc
    ;;
  env) print_env ;;
  *) echo "usage: $0 up|down|status|env" >&2; exit 2 ;;
esac
