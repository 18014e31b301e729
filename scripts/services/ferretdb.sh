#!/usr/bin/env bash
# FerretDB 1.x with its SQLite backend: the MongoDB-wire server used in place of
# MongoDB, which cannot be installed here (no Docker, no MongoDB packages).
#
# Usage: ferretdb.sh install | start | stop | status | reset | bin   (bin: builds if needed, prints the binary's path)
#   MONGO_PORT          port on 127.0.0.1 (default 27017)
#   FERRETDB_LOG_LEVEL  debug | info | warn | error (default error: info logs every
#                       connection, warn dumps every failed command, e.g. the drivers'
#                       endSessions on close, which FerretDB 1.x does not implement)
#   FERRETDB_SQLITE_PARAMS  extra SQLite URL query, e.g. '_pragma=synchronous(normal)' (default
#                       none: FerretDB sets busy_timeout(10000), journal_mode(wal), auto_vacuum(none);
#                       no pragma measured faster, the cost is FerretDB's Go code, not SQLite I/O)
#
# The server is our own tiny Go main (ferretdb/main.go) around FerretDB's embeddable
# package: a `go install` of cmd/ferretdb from the published module panics at start
# because the generated build/version/version.txt is missing there.
#
# install builds it against a copy of the FerretDB module with ferretdb/patches/*.patch applied:
# upstream v1.24.2 never uses the SQLite _id index (see the patch), which made every lookup,
# update and delete by _id a full table scan (~1 s at 50,000 documents; ~2-3 ms patched). The other
# patches queue writers on a mutex instead of SQLite's sleeping busy handler, stop a release build
# from doing debug-log and leak-tracking work, and make every update, findAndModify and delete
# statement atomic per document as on MongoDB (upstream reads and rewrites with nothing in between
# held; test/store/atomic-updates.test.ts races them). Each patch's header has its measurements.
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
PATCHES=()
for p in "$SRC_DIR"/patches/*.patch; do [[ -e "$p" ]] && PATCHES+=("$p"); done
SRC_HASH="$(cat "$SRC_DIR/go.mod" "$SRC_DIR/go.sum" "$SRC_DIR/main.go" ${PATCHES[@]+"${PATCHES[@]}"} | sha256sum | cut -c1-12)"
BIN="$LEADS_CACHE/ferretdb/$FERRETDB_VERSION-$SRC_HASH/ferretdb"

# build_in STAGE OUT : builds the server into OUT from a staging copy of our module under STAGE,
# whose go.mod replaces FerretDB with a copy of the module that has ferretdb/patches/*.patch applied.
build_in() {
  local stage="$1" out="$2" upstream p
  mkdir -p "$stage/main" || return 1
  cp "$SRC_DIR/go.mod" "$SRC_DIR/go.sum" "$SRC_DIR/main.go" "$stage/main/" || return 1
  if ((${#PATCHES[@]} > 0)); then
    upstream="$(cd "$stage/main" && run_go mod download -json github.com/FerretDB/FerretDB |
      sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
    [[ -n "$upstream" && -d "$upstream" ]] || { log "cannot download the FerretDB $FERRETDB_VERSION module"; return 1; }
    cp -R "$upstream" "$stage/FerretDB" && chmod -R u+w "$stage/FerretDB" || return 1
    for p in "${PATCHES[@]}"; do
      patch -d "$stage/FerretDB" -p1 --batch --forward --quiet -i "$p" >&2 ||
        { log "patch $(basename "$p") does not apply to FerretDB $FERRETDB_VERSION"; return 1; }
    done
    (cd "$stage/main" && run_go mod edit -replace "github.com/FerretDB/FerretDB=../FerretDB") || return 1
  fi
  (cd "$stage/main" && run_go build -o "$out" .)
}

install() {
  [[ -x "$BIN" ]] && return 0
  [[ -n "$FERRETDB_VERSION" ]] || die "cannot read the FerretDB version from $SRC_DIR/go.mod"
  ((${#PATCHES[@]} == 0)) || command -v patch >/dev/null 2>&1 || apt_install patch
  log "building FerretDB $FERRETDB_VERSION with ${#PATCHES[@]} patch(es) into $BIN (first time takes a few minutes)"
  mkdir -p "$(dirname "$BIN")"
  # Staging and build go next to the target, per process, and the binary is renamed into place,
  # so neither an interrupted build nor two concurrent ones leave a binary taken as done.
  local tmp="$BIN.tmp.$$" stage="$BIN.src.$$"
  if ! build_in "$stage" "$tmp"; then
    rm -rf "$stage" "$tmp"
    die "build of FerretDB failed"
  fi
  rm -rf "$stage"
  mv -f "$tmp" "$BIN"
}

# The port check first answers "no" at once when nothing listens (the ping's
# server selection would wait 2 s); the ping then proves the wire protocol works.
answers() { port_open "$MONGO_PORT" && [[ -x "$BIN" ]] && "$BIN" -ping -listen-addr "$LISTEN_ADDR"; }

start() {
  install
  replace_orphans "$MONGO_PORT"
  # A server still running a binary of other sources (before a new patch) would go on serving the
  # old semantics: it gives way to this build, on the same data.
  if pid_alive "$SERVICE_NAME" && [[ "$(readlink "/proc/$(cat "$LEADS_RUN/$SERVICE_NAME.pid")/exe")" != "$BIN" ]]; then
    log "replacing the FerretDB running from other sources"
    stop_pid "$SERVICE_NAME"
  fi
  # A second start while one runs only waits for it to answer. Something else on the port (another
  # FerretDB, a real mongod) would silently serve our tests instead of this server: refused.
  mkdir -p "$DATA_DIR"
  start_and_wait "$SERVICE_NAME" 60 answers "FerretDB on $LISTEN_ADDR" "$MONGO_PORT" \
    "$BIN" -listen-addr "$LISTEN_ADDR" -backend sqlite -sqlite-dir "$DATA_DIR" \
    -sqlite-params "${FERRETDB_SQLITE_PARAMS:-}" -log-level "${FERRETDB_LOG_LEVEL:-error}"
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
  bin) install && echo "$BIN" ;;
  *) die "usage: $0 install|start|stop|status|reset|bin" ;;
esac
