# Shared helpers for scripts/services/*.sh. Sourced, never executed.
# Every service script takes one of: install | start | stop | status.
#   install  idempotent; downloads and builds go to $LEADS_CACHE so fresh clones reuse them
#   start    starts on loopback in the background, waits until it answers, fails loudly otherwise
#   stop     stops what start started (pid file), quietly succeeds if nothing runs
#   status   exit 0 when the service answers
set -euo pipefail

SERVICES_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SERVICES_DIR/../.." && pwd)"
LEADS_CACHE="${LEADS_CACHE:-$HOME/.cache/lead-intake}"
LEADS_RUN="${LEADS_RUN:-$REPO_ROOT/.run}"
mkdir -p "$LEADS_CACHE" "$LEADS_RUN"

log() { printf '[%s] %s\n' "${SERVICE_NAME:-services}" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# wait_for NAME TIMEOUT_SECONDS COMMAND... : polls COMMAND until it succeeds.
wait_for() {
  local name="$1" timeout="$2"; shift 2
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      log "$name did not answer within ${timeout}s; last log lines:"
      tail -n 40 "$LEADS_RUN/$name.log" >&2 2>/dev/null || true
      return 1
    fi
    sleep 0.5
  done
}

# port_open PORT : true when something listens on 127.0.0.1:PORT.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# A killed process lingers as a zombie for a moment; it does not count as alive.
pid_alive() {
  local f="$LEADS_RUN/$1.pid" pid
  [[ -f "$f" ]] || return 1
  pid="$(cat "$f")"
  kill -0 "$pid" 2>/dev/null || return 1
  [[ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != "Z" ]]
}

# start_bg NAME COMMAND... : runs COMMAND detached, logs to $LEADS_RUN/NAME.log, pid to NAME.pid.
start_bg() {
  local name="$1"; shift
  nohup setsid "$@" >>"$LEADS_RUN/$name.log" 2>&1 </dev/null &
  echo $! >"$LEADS_RUN/$name.pid"
}

stop_pid() {
  local name="$1" f="$LEADS_RUN/$1.pid"
  [[ -f "$f" ]] || return 0
  local pid; pid="$(cat "$f")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -9 -- "-$pid" 2>/dev/null || kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

# apt_install PKG... : installs Debian packages only when missing.
apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  ((${#missing[@]} == 0)) && return 0
  log "installing ${missing[*]} from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null || die "apt-get update failed"
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || die "apt-get install ${missing[*]} failed"
}

# go_bin : the Go toolchain; /usr/local/go/bin is where the official Go tarball installs, often not on PATH.
go_bin() {
  command -v go 2>/dev/null || { [[ -x /usr/local/go/bin/go ]] && echo /usr/local/go/bin/go; } ||
    die "Go >= 1.24 is required: none on PATH or in /usr/local/go/bin"
}

# run_go ARGS... : go with its module and build caches under $LEADS_CACHE, so rebuilds are fast and
# the user's Go setup does not matter: GOFLAGS is replaced (-modcacherw keeps the cache deletable
# with rm -rf; -buildvcs=false because the repo may have no commits), no go.work applies, no other
# toolchain is fetched, and cgo is off (everything we build is pure Go).
run_go() {
  local go; go="$(go_bin)"
  GOPATH="$LEADS_CACHE/go" GOMODCACHE="$LEADS_CACHE/go/pkg/mod" GOCACHE="$LEADS_CACHE/go/build-cache" \
    GOFLAGS="-modcacherw -buildvcs=false" GOWORK=off GOTOOLCHAIN=local CGO_ENABLED=0 "$go" "$@"
}
