#!/usr/bin/env bash
# The operations tools the test suite runs against the chart and the dashboards:
#   helm and kubeconform, built from their Go modules (no release downloads from GitHub here);
#   the JSON schemas kubeconform validates against: Kubernetes' from PyPI's kubernetes-validate wheel
#   (it bundles them; GitHub, their usual home, is out of reach), the Prometheus Operator's CRDs from
#   its Go module (see kube-schemas.py);
#   Prometheus, Debian's package;
#   Chromium, Debian's package (with the Liberation fonts its screenshots need), the browser
#   test/browser/console-browser.test.ts drives through playwright-core (no browser download);
#   Schemathesis, the contract fuzzer of test/api/api-contract-*.test.ts, from PyPI into a
#   virtual environment of its own (Python 3 with venv must be on the machine);
#   Confluent's Python client (confluent-kafka, with its schema registry and JSON extras) from PyPI into
#   a virtual environment of its own: the CRM consumer snippet of docs/crm.md is run with it by
#   test/api/crm-assignment-feed.test.ts;
#   PHP's command line, Debian's php-cli: the partners' PHP verification snippet is run by
#   test/api/callback-verification-snippets.test.ts (with node and python3);
#   for the PHP partner SDK (sdks/php), Debian's php-curl, php-mbstring, php-xml, composer and phpunit:
#   test/api/sdk-live.test.ts runs its phpunit suite and installs its quickstart with composer
#   the Python SDK's tests need nothing beyond python3's standard library, and mypy (from PyPI, in a virtual
#   environment of its own) checks its types strictly;
#   socat, Debian's package: the network partition drill forwards a namespace's ports through it.
#
# Usage: tools.sh install | env
#   install  idempotent; builds and schemas go to $LEADS_CACHE/tools, keyed on their versions
#   env      prints HELM_BIN, KUBECONFORM_BIN, K8S_SCHEMAS_DIR, PROMETHEUS_BIN, SCHEMATHESIS_BIN, CHROMIUM_BIN, PHP_BIN,
#            PHPUNIT_BIN, COMPOSER_BIN, MYPY_BIN and CONFLUENT_PYTHON_BIN; exits 1, naming
#            what is missing, when one is not installed
SERVICE_NAME=tools
# shellcheck source=scripts/services/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HELM_VERSION=v3.21.4
# The Kubernetes version helm assumes without a cluster (template, lint): helm's release builds set
# it from the k8s.io/client-go they build against (v0.36 for v3.21) with -ldflags, as done here; a
# plain `go install` would leave it at 1.20 and fail every chart that requires a newer one.
HELM_KUBE_MINOR=36
KUBECONFORM_VERSION=v0.7.0
KUBERNETES_VALIDATE_VERSION=1.37.0
PROMETHEUS_OPERATOR_VERSION=v0.85.0
SCHEMATHESIS_VERSION=4.32.5
CONFLUENT_KAFKA_VERSION=2.16.1
MYPY_VERSION=2.4.1

TOOLS="$LEADS_CACHE/tools"
HELM_BIN="$TOOLS/helm-$HELM_VERSION-k8s1.$HELM_KUBE_MINOR/helm"
KUBECONFORM_BIN="$TOOLS/kubeconform-$KUBECONFORM_VERSION/kubeconform"
K8S_SCHEMAS_DIR="$TOOLS/kubeconform-schemas-$KUBERNETES_VALIDATE_VERSION-$PROMETHEUS_OPERATOR_VERSION"
SCHEMATHESIS_VENV="$TOOLS/schemathesis-$SCHEMATHESIS_VERSION"
SCHEMATHESIS_BIN="$SCHEMATHESIS_VENV/bin/schemathesis"
CONFLUENT_VENV="$TOOLS/confluent-kafka-$CONFLUENT_KAFKA_VERSION"
CONFLUENT_PYTHON_BIN="$CONFLUENT_VENV/bin/python"
MYPY_VENV="$TOOLS/mypy-$MYPY_VERSION"
MYPY_BIN="$MYPY_VENV/bin/mypy"

# go_install BIN MODULE@VERSION [LDFLAGS] : builds into a temporary GOBIN next to BIN and renames,
# so an interrupted build never leaves a binary taken as done.
go_install() {
  local bin="$1" module="$2" ldflags="${3:-}" tmp
  [[ -x "$bin" ]] && return 0
  log "building $module into $bin (first time takes a few minutes)"
  tmp="$(dirname "$bin").tmp.$$"
  mkdir -p "$tmp"
  if ! GOBIN="$tmp" run_go install -ldflags "$ldflags" "$module"; then
    rm -rf "$tmp"
    die "go install $module failed"
  fi
  mkdir -p "$(dirname "$bin")"
  mv -f "$tmp/$(basename "$bin")" "$bin"
  rm -rf "$tmp"
}

# $K8S_SCHEMAS_DIR/kubernetes/v<version>-local-strict/: Kubernetes' own kinds, per version (only the
# strict sets, the ones kubeconform -strict reads). $K8S_SCHEMAS_DIR/crds/: the Prometheus
# Operator's ServiceMonitor and PrometheusRule, from the CRDs in its Go module.
install_schemas() {
  [[ -f "$K8S_SCHEMAS_DIR/.complete" ]] && return 0
  log "preparing JSON schemas (kubernetes-validate $KUBERNETES_VALIDATE_VERSION, prometheus-operator $PROMETHEUS_OPERATOR_VERSION CRDs)"
  local tmp operator
  tmp="$(mktemp -d)"
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION" ||
    { rm -rf "$tmp"; die "pip download kubernetes-validate==$KUBERNETES_VALIDATE_VERSION failed"; }
  unzip -q "$tmp"/kubernetes_validate-*.whl 'kubernetes_validate/kubernetes-json-schema/*-local-strict/*' -d "$tmp/x" ||
    { rm -rf "$tmp"; die "the kubernetes-validate wheel holds no schemas where expected"; }
  rm -rf "$K8S_SCHEMAS_DIR"
  mkdir -p "$K8S_SCHEMAS_DIR"
  mv "$tmp/x/kubernetes_validate/kubernetes-json-schema" "$K8S_SCHEMAS_DIR/kubernetes"
  rm -rf "$tmp"
  operator="$(run_go mod download -json "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [[ -d "$operator" ]] || die "go mod download of prometheus-operator $PROMETHEUS_OPERATOR_VERSION failed"
  python3 "$SERVICES_DIR/kube-schemas.py" kubernetes "$K8S_SCHEMAS_DIR/kubernetes" || die "preparing the Kubernetes schemas failed"
  python3 "$SERVICES_DIR/kube-schemas.py" crds "$K8S_SCHEMAS_DIR/crds" \
    "$operator"/example/prometheus-operator-crd/monitoring.coreos.com_{servicemonitors,prometheusrules}.yaml ||
    die "preparing the Prometheus Operator schemas failed"
  touch "$K8S_SCHEMAS_DIR/.complete"
}

# venv_install DIR WHAT PACKAGE==VERSION : PACKAGE into a virtual environment of its own at DIR (scripts
# in a venv name its path, so it is built in place); the .complete mark is written last, so an
# interrupted install is never taken as done.
venv_install() {
  local venv="$1" what="$2" package="$3"
  [[ -f "$venv/.complete" ]] && return 0
  command -v python3 >/dev/null ||
    die "$what needs Python 3.9+ with venv and pip: install python3 and python3-venv"
  python3 -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 9))' 2>/dev/null ||
    die "$what needs Python 3.9+ with the venv and ensurepip modules (Debian: apt-get install python3-venv); found $(python3 --version 2>&1)"
  log "installing $package from PyPI into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv" || die "python3 -m venv $venv failed"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$package" || die "pip install $package failed"
  touch "$venv/.complete"
}

install() {
  apt_install prometheus php-cli socat
  apt_install php-curl php-mbstring php-xml composer phpunit
  apt_install chromium fonts-liberation
  /usr/bin/chromium --version >/dev/null 2>&1 || die "chromium is installed but /usr/bin/chromium --version fails"
  local k8s="-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$HELM_KUBE_MINOR"
  k8s+=" -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$HELM_KUBE_MINOR"
  go_install "$HELM_BIN" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" "-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION $k8s"
  go_install "$KUBECONFORM_BIN" "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION"
  install_schemas
  venv_install "$SCHEMATHESIS_VENV" "Schemathesis $SCHEMATHESIS_VERSION (the API contract test)" "schemathesis==$SCHEMATHESIS_VERSION"
  venv_install "$MYPY_VENV" "mypy $MYPY_VERSION (the Python SDK's type check)" "mypy==$MYPY_VERSION"
  venv_install "$CONFLUENT_VENV" "confluent-kafka $CONFLUENT_KAFKA_VERSION (the CRM consumer snippet's test)" "confluent-kafka[json,schemaregistry]==$CONFLUENT_KAFKA_VERSION"
}

print_env() {
  local missing=() prometheus php
  prometheus="$(command -v prometheus || true)"
  [[ -n "$prometheus" ]] || missing+=("prometheus")
  php="$(command -v php || true)"
  [[ -n "$php" ]] || missing+=("php-cli")
  [[ -n "$php" ]] && ! "$php" -r 'exit(extension_loaded("curl") ? 0 : 1);' && missing+=("php-curl")
  command -v phpunit >/dev/null || missing+=("phpunit")
  command -v composer >/dev/null || missing+=("composer")
  command -v socat >/dev/null || missing+=("socat")
  [[ -x "$HELM_BIN" ]] || missing+=("helm $HELM_VERSION")
  [[ -x "$KUBECONFORM_BIN" ]] || missing+=("kubeconform $KUBECONFORM_VERSION")
  [[ -f "$K8S_SCHEMAS_DIR/.complete" ]] || missing+=("kubeconform schemas")
  [[ -f "$SCHEMATHESIS_VENV/.complete" ]] || missing+=("schemathesis $SCHEMATHESIS_VERSION")
  [[ -f "$CONFLUENT_VENV/.complete" ]] || missing+=("confluent-kafka $CONFLUENT_KAFKA_VERSION")
  [[ -f "$MYPY_VENV/.complete" ]] || missing+=("mypy $MYPY_VERSION")
  [[ -x /usr/bin/chromium ]] || missing+=("chromium")
  ((${#missing[@]} == 0)) || die "not installed: ${missing[*]} (run: bash scripts/services/tools.sh install)"
  cat <<ENV
HELM_BIN=$HELM_BIN
KUBECONFORM_BIN=$KUBECONFORM_BIN
K8S_SCHEMAS_DIR=$K8S_SCHEMAS_DIR
PROMETHEUS_BIN=$prometheus
SCHEMATHESIS_BIN=$SCHEMATHESIS_BIN
CHROMIUM_BIN=/usr/bin/chromium
PHP_BIN=$php
PHPUNIT_BIN=$(command -v phpunit)
COMPOSER_BIN=$(command -v composer)
MYPY_BIN=$MYPY_BIN
CONFLUENT_PYTHON_BIN=$CONFLUENT_PYTHON_BIN
ENV
}

case "${1:-}" in
  install) install ;;
  env) print_env ;;
  *) die "usage: $0 install|env" ;;
esac
