#!/usr/bin/env bash
# Schema registry with Confluent's REST API, for local runs and tests:
# Apicurio Registry, whose ccompat API (http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7)
# is what @kafkajs/confluent-schema-registry talks to.
#   scripts/services/registry.sh install|start|stop|status
# Schemas persist across restarts in an embedded H2 file database under
# $REGISTRY_DATA (default $LEADS_RUN/registry-data); remove that folder, while
# stopped, for an empty registry.
SERVICE_NAME=registry
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# 3.0.9 is pinned on purpose: it is the newest release on Maven Central that
#  - attaches the runnable `all` tar.gz (3.1.x and 3.2.x attach none), and
#  - runs on Java 17 (3.3.x is compiled for Java 21, which Debian 12 lacks).
REGISTRY_VERSION=3.0.9
REGISTRY_ARTIFACT="io.apicurio:apicurio-registry-app:$REGISTRY_VERSION:tar.gz:all"
REGISTRY_PORT="${REGISTRY_PORT:-8081}"
REGISTRY_DATA="${REGISTRY_DATA:-$LEADS_RUN/registry-data}"
REGISTRY_HOME="$LEADS_CACHE/registry/$REGISTRY_VERSION"
REGISTRY_JAR="$REGISTRY_HOME/apicurio-registry-app-$REGISTRY_VERSION-runner.jar"
REGISTRY_URL="http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7"
M2_REPO="$LEADS_CACHE/m2"

answering() {
  [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$REGISTRY_URL/subjects")" == 200 ]]
}

install() {
  [[ -f "$REGISTRY_HOME/.installed" ]] && return 0
  command -v java >/dev/null || apt_install openjdk-17-jre-headless
  command -v mvn >/dev/null || apt_install maven
  command -v curl >/dev/null || apt_install curl

  log "fetching $REGISTRY_ARTIFACT from Maven Central"
  # maven-dependency-plugin 2.10 on purpose: 3.x reads the artifact's POM first, and
  # the parent POM io.apicurio:apicurio-registry:3.0.9 is missing from Central, so
  # 3.x fails; 2.10 with transitive=false fetches the file alone. -C: strict checksums;
  # -U: retry even if an earlier failed download was recorded in the local repo.
  # Output is kept for failures only: even quiet, Maven 3.8 prints stray ANSI resets.
  local out
  out="$(mvn -B -q -C -U -Dmaven.repo.local="$M2_REPO" \
    org.apache.maven.plugins:maven-dependency-plugin:2.10:get \
    -Dartifact="$REGISTRY_ARTIFACT" -Dtransitive=false </dev/null 2>&1)" \
    || { printf '%s\n' "$out" >&2; die "maven could not fetch $REGISTRY_ARTIFACT"; }

  local tarball="$M2_REPO/io/apicurio/apicurio-registry-app/$REGISTRY_VERSION/apicurio-registry-app-$REGISTRY_VERSION-all.tar.gz"
  # Unpack beside the target and rename, so an interrupted install never looks complete.
  rm -rf "$REGISTRY_HOME" "$REGISTRY_HOME.tmp"
  mkdir -p "$REGISTRY_HOME.tmp"
  tar -xzf "$tarball" -C "$REGISTRY_HOME.tmp" || die "could not unpack $tarball"
  [[ -f "$REGISTRY_HOME.tmp/${REGISTRY_JAR##*/}" ]] || die "${REGISTRY_JAR##*/} missing from $tarball"
  mv "$REGISTRY_HOME.tmp" "$REGISTRY_HOME"
  touch "$REGISTRY_HOME/.installed"
  log "installed Apicurio Registry $REGISTRY_VERSION in $REGISTRY_HOME"
}

start() {
  replace_orphans "$REGISTRY_PORT"
  if answering; then log "already running at $REGISTRY_URL"; return 0; fi
  install
  mkdir -p "$REGISTRY_DATA"
  pid_alive registry || log "starting Apicurio Registry $REGISTRY_VERSION on 127.0.0.1:$REGISTRY_PORT"
  # System properties override the app's built-in application.properties:
  # - loopback only, on our port;
  # - SQL storage (the default kind) on an H2 file instead of H2 in memory;
  # - a small JDBC pool: the default keeps 20 connections open;
  # - canonical hashing, so re-registering a schema that differs only in whitespace
  #   or key order finds the existing version, as Confluent's registry does;
  # - authentication off (it is off by default; stated so a future default can't flip it).
  # The app has no UI (Apicurio 3 ships it separately).
  # JVM: C1 only (TieredStopAtLevel=1), serial GC and a heap that starts small
  # halve startup (~4 s) and keep it near 170 MB resident; a test registry needs no C2.
  start_and_wait registry 90 answering "the registry at $REGISTRY_URL" "$REGISTRY_PORT" \
    java -Xms32m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dquarkus.http.host=127.0.0.1 \
    -Dquarkus.http.port="$REGISTRY_PORT" \
    -Dapicurio.storage.kind=sql \
    -Dapicurio.storage.sql.kind=h2 \
    -Dapicurio.datasource.url="jdbc:h2:file:$REGISTRY_DATA/registry" \
    -Dapicurio.datasource.jdbc.initial-size=2 \
    -Dapicurio.datasource.jdbc.min-size=2 \
    -Dapicurio.datasource.jdbc.max-size=10 \
    -Dapicurio.ccompat.use-canonical-hash=true \
    -Dapicurio.authn.enabled=false \
    -jar "$REGISTRY_JAR"
  log "ready at $REGISTRY_URL"
}

stop() { stop_pid registry; }

status() {
  if answering; then log "answering at $REGISTRY_URL"; else log "not answering at $REGISTRY_URL"; return 1; fi
}

case "${1:-}" in
  install | start | stop | status) "$1" ;;
  *) die "usage: $0 install|start|stop|status" ;;
esac
