#!/usr/bin/env bash
# Run certcut's outputs through the independent tools its users run.
#
#   scripts/interop.sh          quick: the Jenkins JUnit schema (xmllint) and the
#                               SARIF Multitool's GitHub rules (npm); .ci/run runs this
#   scripts/interop.sh --all    also builds and runs slsa-verifier v2.7.1, Sigstore's
#                               timestamp-authority v1.2.9 and cosign v2.6.5
#
# Tools are pinned and installed into $CERTCUT_INTEROP_CACHE (default: a directory
# under ${TMPDIR:-/tmp}), never onto the system PATH; a later run reuses them. The
# Go tools are built with -trimpath from the Go module proxy. Each Go test that
# needs a tool skips, saying so, when the tool is absent, so `go test ./...` alone
# stays green without them.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local
export GOFLAGS="-buildvcs=false -trimpath"

COSIGN_VERSION=v2.6.5
SLSA_VERIFIER_VERSION=v2.7.1
TSA_VERSION=v1.2.9
SARIF_MULTITOOL_VERSION=5.7.0

all=false
[ "${1:-}" = "--all" ] && all=true

cache="${CERTCUT_INTEROP_CACHE:-${TMPDIR:-/tmp}/certcut-interop}"
mkdir -p "$cache/bin" "$cache/npm"
export GOBIN="$cache/bin"
export PATH="$cache/bin:$cache/npm/node_modules/@microsoft/sarif-multitool-linux:$PATH"

timed() { # timed LABEL CMD...: run, print how long it took
  local label=$1 start=$SECONDS
  shift
  "$@"
  echo "   $label: $((SECONDS - start)) s"
}

SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"

echo "== interop tools in $cache"
if ! command -v xmllint >/dev/null 2>&1; then
  timed "xmllint (apt libxml2-utils)" bash -c "$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libxml2-utils >/dev/null"
fi
if [ ! -x "$cache/npm/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool" ]; then
  timed "SARIF Multitool $SARIF_MULTITOOL_VERSION (npm)" \
    npm install --silent --no-audit --no-fund --prefix "$cache/npm" "@microsoft/sarif-multitool@$SARIF_MULTITOOL_VERSION"
fi

echo "== Jenkins JUnit schema and GitHub's SARIF rules"
go test -count=1 ./render -run 'TestJUnitJenkins|TestSARIFGitHubRules' -v | grep -E '^(--- |ok|FAIL)'

if ! $all; then
  echo "== quick interop done (scripts/interop.sh --all also runs slsa-verifier, Sigstore's TSA and cosign)"
  exit 0
fi

if [ ! -x "$cache/bin/slsa-verifier" ]; then
  # Its go.mod has replace directives, so `go install …@v2.7.1` is refused: build it
  # from its module's source in the module cache.
  dir=$(go mod download -json "github.com/slsa-framework/slsa-verifier/v2@$SLSA_VERIFIER_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  timed "slsa-verifier $SLSA_VERIFIER_VERSION (go build)" bash -c "cd '$dir' && go build -o '$cache/bin/slsa-verifier' ./cli/slsa-verifier"
fi
if [ ! -x "$cache/bin/timestamp-server" ]; then
  timed "timestamp-server $TSA_VERSION (go install)" go install "github.com/sigstore/timestamp-authority/cmd/timestamp-server@$TSA_VERSION"
fi
if [ ! -x "$cache/bin/cosign" ]; then
  timed "cosign $COSIGN_VERSION (go install)" go install "github.com/sigstore/cosign/v2/cmd/cosign@$COSIGN_VERSION"
fi

echo "== slsa-verifier verify-vsa, default invocation (no --public-key-id)"
go test -count=1 ./attest -run TestSLSAVerifierDefault -v | grep -E '^(--- |ok|FAIL)'

work=$(mktemp -d)
tsa_pid=""
cleanup() {
  if [ -n "$tsa_pid" ]; then kill "$tsa_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "== Sigstore timestamp-authority (loopback only): bundle timestamp against it"
port=$((20000 + RANDOM % 20000))
timestamp-server serve --host 127.0.0.1 --port "$port" --timestamp-signer memory >"$work/tsa.log" 2>&1 &
tsa_pid=$!
for _ in $(seq 50); do
  curl -fsS "http://127.0.0.1:$port/api/v1/timestamp/certchain" -o "$work/tsa-chain.pem" 2>/dev/null && break
  sleep 0.2
done
cp examples/rfc0211/spec-repo/evidence/v2-host-bundles/demo-host.json "$work/demo-host.json"
go run ./cmd/bundle timestamp --tsa "http://127.0.0.1:$port/api/v1/timestamp" --tsa-cert "$work/tsa-chain.pem" "$work/demo-host.json"
go run ./cmd/bundle verify --host-key examples/rfc0211/keys --tsa-cert "$work/tsa-chain.pem" "$work/demo-host.json"
openssl ts -reply -in "$work/demo-host.json.tsr" -text >/dev/null

echo "== cosign verify-blob-attestation of certcut's envelopes"
for env in examples/rfc0211/attestations/*.json; do
  cosign verify-blob-attestation --key examples/rfc0211/attestor/demo-attestor-1.pub.pem \
    --insecure-ignore-tlog --check-claims=false --signature "$env" /dev/null >/dev/null
  echo "   $env: verified by cosign"
done
echo "== interop passed"
