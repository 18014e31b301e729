#!/usr/bin/env bash
# Redis from Debian's packages, on loopback, with append-only persistence so a restart keeps
# idempotency records and rate-limit windows.
SERVICE_NAME=redis
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PORT="${REDIS_PORT:-6379}"
DIR="$LEADS_RUN/redis"

answers() { timeout 5 redis-cli -h 127.0.0.1 -p "$PORT" ping | grep -q PONG; }

case "${1:-}" in
  install) apt_install redis-server redis-tools ;;
  start)
    command -v redis-server >/dev/null || apt_install redis-server redis-tools
    replace_orphans "$PORT"
    if answers 2>/dev/null; then log "already answering on $PORT"; exit 0; fi
    mkdir -p "$DIR"
    # Appended writes are left to the OS to flush (appendfsync no): a process killed or stopped loses
    # nothing by it, only the machine failing would; with a flush each second, a disk kept busy by
    # Kafka and the store stalls Redis's own writes ("fsync is taking too long"), and its answers.
    # The process title stays off: setting it overwrites the arguments and environment that tell
    # this server apart later (lib.sh run_dir_of).
    start_and_wait redis 30 answers "redis on 127.0.0.1:$PORT" "$PORT" \
      redis-server --bind 127.0.0.1 --port "$PORT" --dir "$DIR" \
      --appendonly yes --appendfsync no --save '' --protected-mode yes --daemonize no \
      --set-proc-title no
    log "up on 127.0.0.1:$PORT"
    ;;
  stop) stop_pid redis ;;
  status) answers ;;
  reset) stop_pid redis; rm -rf "$DIR" ;;
  *) die "usage: $0 install|start|stop|status|reset" ;;
esac
