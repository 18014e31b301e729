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
# Absolute, because it is written into every server's environment to recognise the server later.
LEADS_RUN="$(cd "$LEADS_RUN" && pwd)"

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
running() {
  kill -0 "$1" 2>/dev/null || return 1
  [[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != "Z" ]]
}

pid_alive() {
  local f="$LEADS_RUN/$1.pid"
  [[ -f "$f" ]] && running "$(cat "$f")"
}

# start_bg NAME COMMAND... : runs COMMAND detached, logs to $LEADS_RUN/NAME.log, pid to NAME.pid.
# LEADS_SERVER_RUN=$LEADS_RUN goes into the server's environment: that is how a server of this
# project is told apart later, even once its checkout is deleted. NAME is appended to $LEADS_STARTED
# when that is set (scripts/test.sh stops exactly what its run started).
start_bg() {
  local name="$1"; shift
  LEADS_SERVER_RUN="$LEADS_RUN" nohup setsid "$@" >>"$LEADS_RUN/$name.log" 2>&1 </dev/null &
  echo $! >"$LEADS_RUN/$name.pid"
  if [[ -n "${LEADS_STARTED:-}" ]]; then echo "$name" >>"$LEADS_STARTED"; fi
}

# start_and_wait NAME TIMEOUT ANSWERS WHAT PORTS COMMAND... : unless NAME (its pid file) runs already,
# fails naming whatever holds one of PORTS (space-separated), then starts COMMAND with start_bg; either
# way polls the function ANSWERS for up to TIMEOUT seconds. A server that exits meanwhile fails the
# start at once, with its log's last lines; one that never answers is stopped. WHAT names it in the error.
start_and_wait() {
  local name="$1" timeout="$2" answers="$3" what="$4" ports="$5" port
  shift 5
  if ! pid_alive "$name"; then
    for port in $ports; do if port_open "$port"; then port_taken "$port"; fi; done
    start_bg "$name" "$@"
  fi
  if ! wait_for "$name" "$timeout" answers_or_exited "$name" "$answers"; then
    stop_pid "$name"
    die "$what did not answer within ${timeout}s (log: $LEADS_RUN/$name.log)"
  fi
  if ! pid_alive "$name"; then
    tail -n 40 "$LEADS_RUN/$name.log" >&2 || true
    stop_pid "$name"
    die "$what exited at start (log: $LEADS_RUN/$name.log)"
  fi
}

# answers_or_exited NAME ANSWERS : true once ANSWERS succeeds, or as soon as NAME's process is gone.
answers_or_exited() { "$2" || ! pid_alive "$1"; }

# stop_process PID : TERM to its process group (start_bg makes it a group leader), KILL after 10 s.
stop_process() {
  local pid="$1"
  running "$pid" || return 0
  kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 40); do running "$pid" || return 0; sleep 0.25; done
  kill -9 -- "-$pid" 2>/dev/null || kill -9 "$pid" 2>/dev/null || true
  for _ in $(seq 1 20); do running "$pid" || return 0; sleep 0.25; done
}

stop_pid() {
  local f="$LEADS_RUN/$1.pid"
  [[ -f "$f" ]] || return 0
  stop_process "$(cat "$f")"
  rm -f "$f"
}

# listener_pid PORT : the process listening on PORT of loopback, empty when none (or not visible).
listener_pid() {
  { ss -ltnpH "sport = :$1" 2>/dev/null || true; } | grep -o 'pid=[0-9]*' | head -n1 | cut -d= -f2 || true
}

# run_dir_of PID : the LEADS_RUN a server of this project runs from, empty for any other process.
# start_bg puts it in the environment; servers started before that are known by a .run/ path in
# their arguments (data dir, config) or working directory (redis).
run_dir_of() {
  local dir
  dir="$({ tr '\0' '\n' <"/proc/$1/environ"; } 2>/dev/null | sed -n 's/^LEADS_SERVER_RUN=//p' | head -n1 || true)"
  [[ -n "$dir" ]] || dir="$({ tr '\0' '\n' <"/proc/$1/cmdline"; readlink "/proc/$1/cwd"; } 2>/dev/null |
    grep -o '/[^=:]*/\.run/' | head -n1 || true)"
  printf '%s' "${dir%/}"
}

# owner_of PID : the checkout a server belongs to ("deleted: <dir>" once gone), or "not this project".
owner_of() {
  local dir; dir="$(run_dir_of "$1")"
  [[ -n "$dir" ]] || { echo "not this project"; return; }
  [[ "$(basename "$dir")" == .run ]] && dir="$(dirname "$dir")"
  if [[ -d "$dir" ]]; then echo "$dir"; else echo "deleted: $dir"; fi
}

# is_orphan PID : a server of this project (run by us) whose run dir is gone, because its checkout
# was deleted, or is this checkout's own but no pid file names it. Only those are safe to replace:
# their data is gone, or ours.
is_orphan() {
  [[ -O "/proc/$1" ]] || return 1
  local dir; dir="$(run_dir_of "$1")"
  [[ -n "$dir" ]] || return 1
  [[ -d "$dir" ]] || return 0
  [[ "$dir" -ef "$LEADS_RUN" ]] && ! grep -qsx "$1" "$LEADS_RUN"/*.pid
}

# replace_orphans PORT... : stops the orphans (see is_orphan) that hold any of PORTS, so that start
# can run a server of this checkout there. Whatever else holds a port is left to the caller.
replace_orphans() {
  local port pid
  for port in "$@"; do
    pid="$(listener_pid "$port")"
    [[ -n "$pid" ]] && is_orphan "$pid" || continue
    log "127.0.0.1:$port is held by pid $pid, left behind by $(owner_of "$pid"); stopping it"
    stop_process "$pid"
    running "$pid" && die "pid $pid (left behind on 127.0.0.1:$port) did not stop; stop it with: kill -9 $pid"
  done
  return 0
}

# port_taken PORT : fails naming the process that holds PORT, whose it is, and the command that stops it.
port_taken() {
  local pid; pid="$(listener_pid "$1")"
  [[ -n "$pid" ]] || die "127.0.0.1:$1 is already in use by another process; stop it or choose another port"
  die "127.0.0.1:$1 is already in use by another process: pid $pid ($(owner_of "$pid")): $(tr '\0' ' ' </proc/"$pid"/cmdline 2>/dev/null | cut -c1-300)
  stop it with: kill $pid   (or choose another port)"
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
