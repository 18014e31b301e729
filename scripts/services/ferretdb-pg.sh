#!/usr/bin/env bash
# FerretDB 1.x on PostgreSQL, beside the local default (FerretDB on SQLite, ferretdb.sh), to compare
# the two backends on the same data (docs/mongodb-ferretdb.md, "FerretDB on PostgreSQL"). Not used by
# the tests or the pipeline: a throwaway PostgreSQL cluster on loopback and the same patched FerretDB
# binary as ferretdb.sh builds, started with -backend postgresql.
#
# Usage: ferretdb-pg.sh up | down | status | reset | env
#   up      installs PostgreSQL from Debian if missing, creates the cluster on first use, starts both
#   down    stops both (data kept); reset also deletes the data
#   env     prints MONGO_URL for the FerretDB (eval it, or: MONGO_URL=... npm run bench -- --only views)
#   PG_PORT             PostgreSQL on 127.0.0.1 (default 5433, so a system cluster on 5432 is left alone)
#   FERRETDB_PG_PORT    FerretDB on 127.0.0.1 (default 27018, beside the default one on 27017)
# Data and logs under $LEADS_RUN/pg-compare/ (.run/ is not committed). Run as root, PostgreSQL runs as
# the postgres user (it refuses root); as any other user, it runs as that user.
SERVICE_NAME=ferretdb-pg
# shellcheck source=scripts/services/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PG_PORT="${PG_PORT:-5433}"
FERRETDB_PG_PORT="${FERRETDB_PG_PORT:-27018}"
LISTEN_ADDR="127.0.0.1:$FERRETDB_PG_PORT"
PG_RUN="$LEADS_RUN/pg-compare"
PG_DATA="$PG_RUN/pgdata"
PG_URL="postgres://postgres@127.0.0.1:$PG_PORT/ferretdb"

pg_bindir() {
  local d
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1 || true)"
  [[ -n "$d" && -x "$d/pg_ctl" ]] && echo "$d"
}

# as_pg COMMAND... : runs COMMAND as the owner of the cluster.
as_pg() {
  if ((EUID == 0)); then runuser -u postgres -- "$@"; else "$@"; fi
}

pg() { as_pg "$(pg_bindir)/$1" "${@:2}"; }

pg_answers() { pg pg_isready -q -h 127.0.0.1 -p "$PG_PORT"; }

ferretdb_bin() { bash "$SERVICES_DIR/ferretdb.sh" bin; }

# Polled by up once it knows the binary (FERRETDB_BIN).
ferretdb_answers() { "$FERRETDB_BIN" -ping -listen-addr "$LISTEN_ADDR"; }

up() {
  [[ -n "$(pg_bindir)" ]] || apt_install postgresql
  [[ -n "$(pg_bindir)" ]] || die "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin"
  local bin; bin="$(ferretdb_bin)"
  mkdir -p "$PG_RUN"
  if ((EUID == 0)); then chown postgres: "$PG_RUN"; fi
  if [[ ! -f "$PG_DATA/PG_VERSION" ]]; then
    log "creating a PostgreSQL cluster in $PG_DATA"
    pg initdb -D "$PG_DATA" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$PG_RUN/initdb.log" 2>&1 ||
      { cat "$PG_RUN/initdb.log" >&2; die "initdb failed"; }
  fi
  if ! pg_answers 2>/dev/null; then
    port_open "$PG_PORT" && port_taken "$PG_PORT"
    # Loopback only, the socket in our own directory; otherwise PostgreSQL's defaults.
    pg pg_ctl -D "$PG_DATA" -l "$PG_RUN/postgresql.log" -w -t 60 \
      -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$PG_RUN" start >/dev/null ||
      { tail -n 40 "$PG_RUN/postgresql.log" >&2; die "PostgreSQL did not start"; }
  fi
  pg psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -qAtc "SELECT 1 FROM pg_database WHERE datname = 'ferretdb'" |
    grep -q 1 || pg createdb -h 127.0.0.1 -p "$PG_PORT" -U postgres ferretdb
  log "PostgreSQL $(pg postgres --version | awk '{print $3}') on 127.0.0.1:$PG_PORT (data: $PG_DATA)"

  FERRETDB_BIN="$bin"
  start_and_wait "$SERVICE_NAME" 60 ferretdb_answers "FerretDB on PostgreSQL on $LISTEN_ADDR" "$FERRETDB_PG_PORT" \
    "$bin" -listen-addr "$LISTEN_ADDR" -backend postgresql -postgresql-url "$PG_URL" \
    -log-level "${FERRETDB_LOG_LEVEL:-error}"
  log "FerretDB on PostgreSQL answering on mongodb://$LISTEN_ADDR/ (same binary as ferretdb.sh: $bin)"
}

down() {
  stop_pid "$SERVICE_NAME"
  if [[ -f "$PG_DATA/PG_VERSION" && -n "$(pg_bindir)" ]] && pg_answers 2>/dev/null; then
    pg pg_ctl -D "$PG_DATA" -m fast -w stop >/dev/null
  fi
  log "stopped"
}

status() {
  local ok=0
  if pg_answers 2>/dev/null; then log "PostgreSQL answering on 127.0.0.1:$PG_PORT"; else log "PostgreSQL not answering on 127.0.0.1:$PG_PORT"; ok=1; fi
  if port_open "$FERRETDB_PG_PORT" && "$(ferretdb_bin)" -ping -listen-addr "$LISTEN_ADDR" >/dev/null 2>&1; then
    log "FerretDB answering on $LISTEN_ADDR"
  else
    log "FerretDB not answering on $LISTEN_ADDR"; ok=1
  fi
  return "$ok"
}

reset() {
  down
  rm -rf "$PG_RUN"
  log "data deleted"
}

case "${1:-}" in
  up | down | status | reset) "$1" ;;
  env) echo "MONGO_URL=mongodb://$LISTEN_ADDR/" ;;
  *) die "usage: $0 up|down|status|reset|env" ;;
esac
