#!/usr/bin/env bash
# Redis from Debian's packages, on loopback, with append-only persistence so a restart keeps
# idempotency records and rate-limit windows.
SERVICE_NAME=redis
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PORT="${REDIS_PORT:-6379}"
DIR="$LEADS_RUN/redis"

answers() { redis-cli -h 127.0.0.1 -p "$PORT" ping | grep -q PONG; }

case "${1:-}" in
  install) apt_install redis-server redis-tools ;;
  start)
    command -v redis-server >/dev/null || apt_install redis-server redis-tools
    if answers 2>/dev/null; then log "already answering on $PORT"; exit 0; fi
    mkdir -p "$DIR"
    start_bg redis redis-server --bind 127.0.0.1 --port "$PORT" --dir "$DIR" \
      --appendonly yes --save '' --protected-mode yes --daemonize no
    wait_for redis 30 answers || die "redis did not start"
    log "up on 127.0.0.1:$PORT"
    ;;
  stop) stop_pid redis ;;
  status) answers ;;
  reset) stop_pid redis; rm -rf "$DIR" ;;
  *) die "usage: $0 install|start|stop|status|reset" ;;
esac
