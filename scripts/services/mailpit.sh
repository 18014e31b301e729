#!/usr/bin/env bash
# Mailpit: a real SMTP server that keeps every message it accepts and shows them on a web page and
# through an HTTP API (the integration tests read delivered mail there). Built from the Go module
# github.com/axllent/mailpit with `go install`, like FerretDB, into $LEADS_CACHE.
#
# Usage: mailpit.sh install | start | stop | status | reset | bin   (bin: builds if needed, prints the binary's path)
#   SMTP_PORT     SMTP port on 127.0.0.1 (default 1025; no TLS, no authentication: loopback only)
#   MAILPIT_PORT  web page and API port on 127.0.0.1 (default 8025)
#
# The published module holds the web page's sources (server/ui-src) but not their build
# (server/ui/dist, made by its release with npm and esbuild): the binary built from it receives,
# keeps and serves mail through its API (/api/v1/...), and its page at / loads without its script
# and styles (blank). Building them needs npm packages of versions the registry here does not serve
# (sass-embedded 1.108.1, pinned by the module's package-lock.json).
SERVICE_NAME=mailpit
# shellcheck source=scripts/services/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MAILPIT_VERSION=v1.33.1
SMTP_PORT="${SMTP_PORT:-1025}"
MAILPIT_PORT="${MAILPIT_PORT:-8025}"
BIN="$LEADS_CACHE/mailpit/$MAILPIT_VERSION/mailpit"
DATA_DIR="$LEADS_RUN/mailpit"

install() {
  [[ -x "$BIN" ]] && return 0
  log "building mailpit $MAILPIT_VERSION into $BIN (first time takes a few minutes)"
  mkdir -p "$(dirname "$BIN")"
  # Into a directory per process, then renamed into place: an interrupted or concurrent build is never taken as done.
  local tmp="$BIN.tmp.$$"
  if ! GOBIN="$tmp" run_go install -ldflags "-s -w" "github.com/axllent/mailpit@$MAILPIT_VERSION"; then
    rm -rf "$tmp"
    die "build of mailpit failed"
  fi
  mv -f "$tmp/mailpit" "$BIN"
  rm -rf "$tmp"
}

answers() {
  port_open "$SMTP_PORT" && curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$MAILPIT_PORT/readyz"
}

start() {
  install
  replace_orphans "$SMTP_PORT" "$MAILPIT_PORT"
  mkdir -p "$DATA_DIR"
  # --max: the tests leave a few thousand messages behind; the oldest go first past it.
  start_and_wait "$SERVICE_NAME" 60 answers "mailpit on 127.0.0.1:$SMTP_PORT and :$MAILPIT_PORT" \
    "$SMTP_PORT $MAILPIT_PORT" "$BIN" --smtp "127.0.0.1:$SMTP_PORT" --listen "127.0.0.1:$MAILPIT_PORT" \
    --database "$DATA_DIR/mailpit.db" --max 5000 --disable-version-check
  log "mailpit $MAILPIT_VERSION: SMTP on smtp://127.0.0.1:$SMTP_PORT, mail at http://127.0.0.1:$MAILPIT_PORT/"
}

stop() { stop_pid "$SERVICE_NAME"; }

status() {
  if answers; then
    log "answering on 127.0.0.1:$SMTP_PORT (SMTP) and 127.0.0.1:$MAILPIT_PORT (web)"
  else
    log "not answering on 127.0.0.1:$SMTP_PORT (SMTP) and 127.0.0.1:$MAILPIT_PORT (web)"
    return 1
  fi
}

reset() {
  stop
  rm -rf "$DATA_DIR"
  log "mail deleted"
}

case "${1:-}" in
  install | start | stop | status | reset) "$1" ;;
  bin) install && echo "$BIN" ;;
  *) die "usage: $0 install|start|stop|status|reset|bin" ;;
esac
