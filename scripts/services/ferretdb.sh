#!/usr/bin/env bash
# FerretDB 1.x with its SQLite backend: the MongoDB-wire server used in place of
# MongoDB, which cannot be installed here (no Docker, no MongoDB packages).
#
# Usage: ferretdb.sh install | start | stop | status | reset
#   MONGO_PORT          port on 127.0.0.1 (default 27017)
#   FERRETDB_LOG_LEVEL  debug | info | warn | error (default error: info logs every
#                       connection, warn dumps every failed command, e.g. the drivers'
#                       endSessions on close, which FerretDB 1.x does not implement)
#
# The server is our own tiny Go main (ferretdb/main.go) around FerretDB's embeddable
# package: a `go install` of cmd/ferretdb from the published module panics at start
# because the generated build/version/version.txt is missing there.
SERVICE_NAME=ferretdb
# shellcheck source=scripts/services/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MONGO_PORT="${MONGO_PORT:-27017}"
LISTEN_ADDR="127.0.0.1:$MONGO_PORT"
SRC_DIR="$SERVICES_DIR/ferretdb"
DATA_DIR="$LEADS_RUN/ferretdb/data"
FERRETDB_VERSION="$(awk '$1 == "github.com/FerretDB/FerretDB" { print $2 }' "$SRC_DIR/go.mod")"
# The binary's path is keyed on the sources, so editing main.go or bumping a
# dependency builds a new binary instead of reusing a stale one.
SRC_HASH="$(cat "$SRC_DIR/go.mod" "$SRC_DIR/go.sum" "$SRC_DIR/main.go" | sha256sum | cut -c1-12)"
BIN="$LEADS_CACHE/ferretdb/$FERRETDB_VERSION-$SRC_HASH/ferretdb"

install() {
  [[ -x "$BIN" ]] && return 0
  [[ -n "$FERRETDB_VERSION" ]] || die "cannot read the FerretDB version from $SRC_DIR/go.mod"
  log "building FerretDB $FERRETDB_VERSION into $BIN (first time takes a few minutes)"
  mkdir -p "$(dirname "$BIN")"
  # The build goes next to the target and is renamed, so an interrupted build never leaves a
  # binary taken as done.
  local tmp="$BIN.tmp.$$"
  if ! (cd "$SRC_DIR" && run_go build -o "$tmp" .); then
    rm -f "$tmp"
    die "go build of FerretDB failed"
  fi
  mv -f "$tmp" "$BIN"
}

# The port check first answers "no" at once when nothing listens (the ping's
# server selection would wait 2 s); the ping then proves the wire protocol works.
answers() { port_open "$MONGO_PORT" && [[ -x "$BIN" ]] && "$BIN" -ping -listen-addr "$LISTEN_ADDR"; }

# Start polls this, so that a server that exits at start fails at once, not after the timeout.
answers_or_exited() { answers || ! pid_alive "$SERVICE_NAME"; }

start() {
  install
  # A second start while one runs only waits for it to answer.
  if ! pid_alive "$SERVICE_NAME"; then
    # Something else on the port (another FerretDB, a real mongod) would silently
    # serve our tests instead of this server: refuse rather than guess.
    port_open "$MONGO_PORT" && die "127.0.0.1:$MONGO_PORT is already in use by another process; stop it or set MONGO_PORT"
    mkdir -p "$DATA_DIR"
    start_bg "$SERVICE_NAME" "$BIN" -listen-addr "$LISTEN_ADDR" -sqlite-dir "$DATA_DIR" \
      -log-level "${FERRETDB_LOG_LEVEL:-error}"
  fi
  if ! wait_for "$SERVICE_NAME" 60 answers_or_exited; then
    stop_pid "$SERVICE_NAME"
    die "FerretDB did not answer on $LISTEN_ADDR (log: $LEADS_RUN/$SERVICE_NAME.log)"
  fi
  if ! pid_alive "$SERVICE_NAME"; then
    tail -n 40 "$LEADS_RUN/$SERVICE_NAME.log" >&2 || true
    stop_pid "$SERVICE_NAME"
    die "FerretDB exited at start (log: $LEADS_RUN/$SERVICE_NAME.log)"
  fi
  log "FerretDB $FERRETDB_VERSION answering on mongodb://$LISTEN_ADDR/ (data: $DATA_DIR)"
}

stop() { stop_pid "$SERVICE_NAME"; }

status() {
  if answers >/dev/null 2>&1; then
    log "answering on $LISTEN_ADDR"
  else
    log "not answering on $LISTEN_ADDR"
    return 1
  fi
}

reset() {
  stop
  rm -rf "$DATA_DIR"
  log "data deleted"
}

case "${1:-}" in
  install | start | stop | status | reset) "$1" ;;
  *) die "usage: $0 install|start|stop|status|reset" ;;
esac
