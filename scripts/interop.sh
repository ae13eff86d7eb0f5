#!/usr/bin/env bash
# Run certcut's outputs through the independent tools its users run.
#
#   scripts/interop.sh         quick: the Jenkins JUnit schema (xmllint) and the SARIF
#                              Multitool's GitHub rules (npm), on test reports and on the
#                              RFC 0211 gate over the real corpus
#   scripts/interop.sh --ci    quick, and builds and runs slsa-verifier v2.7.1; .ci/run runs this
#   scripts/interop.sh --all   --ci, and builds and runs Sigstore's timestamp-authority
#                              v1.2.9 and cosign v2.6.5
#
# What runs on certcut's outputs for the real corpus (../shared/corpus/openwop; skipped,
# saying so, when it is absent):
#   - the RFC 0211 gate, with the reference host's key pinned offline with its origin (as
#     cmd/bundle/testdata/script/gate_corpus.txtar does), writes SARIF (the Multitool's SARIF
#     and GitHub rules, errors and warnings: none allowed) and JUnit (Jenkins' junit-10.xsd;
#     the gate passes, so the JUnit counts no failure or error);
#   - slsa-verifier verify-vsa, default invocation (--public-key-path, no --public-key-id),
#     with every check it offers (subject digest, verifier id, resource URI, each level as
#     certcut signed them), on the gate's VSA (`gate accepted --attest`, subject the RFC
#     file) and on `bundle attest --predicate vsa` of the reference host's bundle (by its
#     sha256 and by its build's gitCommit); a wrong subject digest must be refused. Also
#     TestSLSAVerifierDefault and docs/attestations.md's slsa-verifier block, which skip
#     without the tool and must not skip here;
#   - (--all) timestamp-server, its in-memory signer, API on 127.0.0.1 only: `bundle
#     timestamp` stamps a copy of the reference host's bundle (the server answers 201),
#     `bundle verify` with the corpus key counts the token, once under the server's whole
#     /certchain and once, with --include-chain-in-response, under its root alone; `openssl
#     ts -verify` checks each token against the root on its own;
#   - (--all) cosign verify-blob-attestation checks both VSAs and the committed example
#     envelopes with their claims: the subject blob's SHA-256 and the predicate type; another
#     blob and another key must be refused.
#
# Why CI (.ci/run) runs --ci and not --all. Cold builds, one at a time with nice -n 10,
# each with a fresh GOCACHE and GOMODCACHE (module downloads included), on this 2-core
# machine while other builds ran (load average 6 to 10):
#   slsa-verifier     385 s wall, 222 s CPU   go build ./cli/slsa-verifier in its module
#   timestamp-server  502 s wall, 309 s CPU   go install .../cmd/timestamp-server@v1.2.9
#   cosign           1256 s wall (about 750 s CPU at the same ratio)
#                                             go install .../cmd/cosign@v2.6.5
# On an idle 2-core machine that is about 130 s, 170 s and 400 s. .ci/run took 291 s cold
# with the quick mode; slsa-verifier and its runs add about 170 s (about 460 s in all),
# timestamp-server another 170 s, which would leave no margin under 10 minutes, and cosign
# alone would exceed it. So CI builds slsa-verifier only; run --all before a release (a
# later run reuses the built tools: with a warm Go build cache the three link in about a
# minute).
#
# Tools are pinned and installed into $CERTCUT_INTEROP_CACHE (default: a directory
# under ${TMPDIR:-/tmp}), never onto the system PATH; a later run reuses them. The
# Go tools are built with -trimpath from the Go module proxy. Each Go test that
# needs a tool skips, saying so, when the tool is absent, so `go test ./...` alone
# stays green without them; this script puts the tools it built first on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export GOTOOLCHAIN=local
export GOFLAGS=-buildvcs=false
# The tools are built with -trimpath; certcut's tests are not (testkit.ModuleRoot
# finds the repository from its source file's path, which -trimpath removes).
tool_goflags="-buildvcs=false -trimpath"

COSIGN_VERSION=v2.6.5
SLSA_VERIFIER_VERSION=v2.7.1
TSA_VERSION=v1.2.9
SARIF_MULTITOOL_VERSION=5.7.0

mode=quick
case "${1:-}" in
  "") ;;
  --ci) mode=ci ;;
  --all) mode=all ;;
  *) echo "usage: scripts/interop.sh [--ci|--all]" >&2; exit 4 ;;
esac

cache="${CERTCUT_INTEROP_CACHE:-${TMPDIR:-/tmp}/certcut-interop}"
mkdir -p "$cache/bin" "$cache/npm"
cache=$(cd "$cache" && pwd)
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
apt_install() { # apt_install PACKAGE...
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

work=$(mktemp -d)
tsa_pids=()
cleanup() {
  local pid
  for pid in "${tsa_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

echo "== interop tools in $cache"
if ! command -v xmllint >/dev/null 2>&1; then
  timed "xmllint (apt libxml2-utils)" apt_install libxml2-utils
fi
if ! command -v jq >/dev/null 2>&1; then
  timed "jq (apt)" apt_install jq
fi
if [ ! -x "$cache/npm/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool" ]; then
  timed "SARIF Multitool $SARIF_MULTITOOL_VERSION (npm)" \
    npm install --silent --no-audit --no-fund --prefix "$cache/npm" "@microsoft/sarif-multitool@$SARIF_MULTITOOL_VERSION"
fi

echo "== Jenkins JUnit schema and GitHub's SARIF rules (test reports)"
go test -count=1 ./render -run 'TestJUnitJenkins|TestSARIFGitHubRules|TestSARIFAbsolutePathIsFileURI|TestJUnitWarningIsNoError' -v | grep -E '^(--- |ok|FAIL)'

corpus=""
if [ -d ../shared/corpus/openwop ]; then
  corpus=$(cd ../shared/corpus/openwop && pwd)
fi
xsd="$root/../shared/interop/jenkins-xunit-junit-10.xsd"
go build -o "$work/bundle" ./cmd/bundle
bundle() { "$work/bundle" "$@"; }
rfc0211="RFCS/0211-a2a-error-details-are-errorinfo.md"
ref="evidence/v2-host-bundles/openwop-host-v2-reference.json"

# sarif_github FILE: the Multitool's SARIF and GitHub rules, errors and warnings;
# it exits 0 whatever it finds, so its results are counted.
sarif_github() {
  Sarif.Multitool validate --rule-kind "Sarif;Gh" --level "Error;Warning" --output "$1.check" "$1" >"$1.log" 2>&1 ||
    { cat "$1.log"; return 1; }
  if [ "$(jq '[.runs[].results[]] | length' "$1.check")" != 0 ]; then
    jq -r '.runs[].results[] | "   \(.ruleId): \(.message.arguments // [] | join(" | "))"' "$1.check"
    echo "the SARIF Multitool's GitHub rules refuse $1"
    return 1
  fi
}

if [ -n "$corpus" ]; then
  echo "== the RFC 0211 gate over the corpus ($corpus), keyring pinned offline: SARIF and JUnit"
  # The reference host's key pinned with the origin a reviewer vouches for, as
  # gate_corpus.txtar does: no network, no unbound origin.
  bundle keys trust --from-pem "$corpus/keys/v2-reference-4.pub.pem" --key-id v2-reference-4 \
    --host-name openwop-host-v2-reference --origin http://127.0.0.1:3838 --keyring "$work/ring.json" >/dev/null
  bundle gate accepted --repo "$corpus" --rfc "$corpus/$rfc0211" --keyring "$work/ring.json" --format sarif >"$work/gate.sarif"
  sarif_github "$work/gate.sarif"
  echo "   gate.sarif: $(jq '.runs[0].results | length' "$work/gate.sarif") results, passes the SARIF Multitool's GitHub rules"
  bundle gate accepted --repo "$corpus" --rfc "$corpus/$rfc0211" --keyring "$work/ring.json" --format junit >"$work/gate.xml"
  if [ -f "$xsd" ]; then
    xmllint --noout --schema "$xsd" "$work/gate.xml" 2>&1 | sed 's/^/   /'
    # The gate passed (its one warning, waiver.register-absent, fails nothing): so
    # does the JUnit, or Jenkins marks a passing gate's build unstable.
    if grep -E '<testsuite .*(failures|errors)="[1-9]' "$work/gate.xml"; then
      echo "the JUnit of a passing gate counts failures or errors"; exit 1
    fi
  else
    echo "SKIPPED: $xsd is absent: the corpus JUnit was not checked"
  fi
else
  echo "SKIPPED: ../shared/corpus/openwop is absent: no corpus outputs were checked"
fi

if [ "$mode" = quick ]; then
  echo "== quick interop done (--ci adds slsa-verifier and Sigstore's TSA, --all also cosign)"
  exit 0
fi

if [ ! -x "$cache/bin/slsa-verifier" ]; then
  # Its go.mod has replace directives, so `go install …@v2.7.1` is refused: build it
  # from its module's source in the module cache.
  dir=$(go mod download -json "github.com/slsa-framework/slsa-verifier/v2@$SLSA_VERIFIER_VERSION" | jq -r .Dir)
  timed "slsa-verifier $SLSA_VERIFIER_VERSION (go build)" bash -c "cd '$dir' && GOFLAGS='$tool_goflags' go build -o '$cache/bin/slsa-verifier' ./cli/slsa-verifier"
fi
if [ "$mode" = all ] && [ ! -x "$cache/bin/timestamp-server" ]; then
  timed "timestamp-server $TSA_VERSION (go install)" env GOFLAGS="$tool_goflags" go install "github.com/sigstore/timestamp-authority/cmd/timestamp-server@$TSA_VERSION"
fi
if [ "$mode" = all ] && [ ! -x "$cache/bin/cosign" ]; then
  timed "cosign $COSIGN_VERSION (go install)" env GOFLAGS="$tool_goflags" go install "github.com/sigstore/cosign/v2/cmd/cosign@$COSIGN_VERSION"
fi

echo "== slsa-verifier verify-vsa, default invocation (no --public-key-id): a test VSA and docs/attestations.md"
go test -count=1 ./attest -run '^TestSLSAVerifierDefault$' -v >"$work/slsa-test.log" 2>&1 || { cat "$work/slsa-test.log"; exit 1; }
grep -E '^(--- |ok)' "$work/slsa-test.log"
if grep -q -- '--- SKIP' "$work/slsa-test.log"; then
  echo "TestSLSAVerifierDefault skipped although slsa-verifier was built"; exit 1
fi
go test -count=1 ./docs -run '^TestDocsCommandsRun$/^attestations.md$' -v >"$work/docs-test.log" 2>&1 || { cat "$work/docs-test.log"; exit 1; }
if grep -q 'SKIPPED attestations.md.*slsa-verifier' "$work/docs-test.log"; then
  grep SKIPPED "$work/docs-test.log"; echo "docs/attestations.md's slsa-verifier block did not run"; exit 1
fi
echo "   docs/attestations.md: its slsa-verifier block ran and passed"

# payload FILE: the statement a DSSE envelope carries.
payload() { jq -r .payload "$1" | base64 -d; }
# vsa_verify ENVELOPE SUBJECT-DIGEST: slsa-verifier's default invocation with every
# check it offers, each value taken from what certcut signed (v2.7.1's flags are
# singular and repeated: --subject-digest, --verified-level).
vsa_verify() {
  local p args=()
  p=$(payload "$1")
  while IFS= read -r level; do args+=(--verified-level "$level"); done < <(jq -r '.predicate.verifiedLevels[]' <<<"$p")
  slsa-verifier verify-vsa --attestation-path "$1" --public-key-path "$work/att/interop-attestor-1.pub.pem" \
    --subject-digest "$2" \
    --verifier-id "$(jq -r .predicate.verifier.id <<<"$p")" \
    --resource-uri "$(jq -r .predicate.resourceUri <<<"$p")" \
    "${args[@]}" >"$work/slsa.log" 2>&1 ||
    { cat "$work/slsa.log"; return 1; }
  echo "   $(basename "$1"): verified by slsa-verifier ($2; levels $(jq -r '.predicate.verifiedLevels | join(", ")' <<<"$p"))"
  # and it does check: another subject digest is refused
  if slsa-verifier verify-vsa --attestation-path "$1" --public-key-path "$work/att/interop-attestor-1.pub.pem" \
    --subject-digest "sha256:$(printf '0%.0s' $(seq 64))" --verifier-id "$(jq -r .predicate.verifier.id <<<"$p")" \
    --resource-uri "$(jq -r .predicate.resourceUri <<<"$p")" "${args[@]}" >/dev/null 2>&1; then
    echo "slsa-verifier accepted $1 for another subject digest"; return 1
  fi
}

if [ -n "$corpus" ]; then
  echo "== slsa-verifier verify-vsa of certcut's VSAs for the corpus"
  bundle keys generate --key-id interop-attestor-1 --out-dir "$work/att" >/dev/null 2>&1
  bundle gate accepted --repo "$corpus" --rfc "$corpus/$rfc0211" --keyring "$work/ring.json" \
    --attest "$work/gate.vsa.json" --key "$work/att/interop-attestor-1.key.pem" --key-id interop-attestor-1 -q
  vsa_verify "$work/gate.vsa.json" "sha256:$(sha256sum "$corpus/$rfc0211" | cut -d' ' -f1)"
  bundle attest --repo "$corpus" --host-key "$corpus/keys" --predicate vsa \
    --key "$work/att/interop-attestor-1.key.pem" --key-id interop-attestor-1 --out "$work/ref.vsa.json" "$corpus/$ref" >/dev/null
  vsa_verify "$work/ref.vsa.json" "sha256:$(sha256sum "$corpus/$ref" | cut -d' ' -f1)"
  vsa_verify "$work/ref.vsa.json" "gitCommit:$(jq -r .host.build.id "$corpus/$ref")"
fi

if [ "$mode" = ci ]; then
  echo "== interop (ci) passed (--all adds Sigstore's timestamp-authority and cosign)"
  exit 0
fi

echo "== Sigstore timestamp-authority (loopback only, in-memory signer): bundle timestamp against it"
if [ -n "$corpus" ]; then
  stamp_source="$corpus/$ref"
  keys=(--host-key "$corpus/keys")
else
  stamp_source=examples/rfc0211/spec-repo/evidence/v2-host-bundles/demo-host.json
  keys=(--host-key examples/rfc0211/keys)
fi
# tsa_check NAME TRUST [SERVER-FLAG...]: start a timestamp-server with the flags, stamp
# a copy of a bundle with `bundle timestamp` (its 201 Created is a reply), check the
# token under TRUST ("chain": the server's whole /certchain; "root": its last, the root,
# alone), `bundle verify` the copy under the same trust and the host key, then
# `openssl ts -verify` the token against the root on its own.
tsa_check() {
  local name=$1 trust=$2 port dir="$work/tsa-$2" cert
  shift 2
  mkdir -p "$dir"
  port=$((20000 + RANDOM % 20000))
  # --disable-ntp-monitoring: its monitor asks public NTP servers, and this runs offline.
  # The API listens on 127.0.0.1 only. v1.2.9 also starts its Prometheus metrics on
  # :2112, every interface, with no flag to move it (pkg/server/prometheus.go): read-only
  # counters, no signing, up for the seconds of one check; so one server runs at a time.
  timestamp-server serve --host 127.0.0.1 --port "$port" --timestamp-signer memory --disable-ntp-monitoring "$@" \
    >"$dir/server.log" 2>&1 &
  tsa_pids+=($!)
  for _ in $(seq 100); do
    curl -fsS "http://127.0.0.1:$port/api/v1/timestamp/certchain" -o "$dir/chain.pem" 2>/dev/null && break
    sleep 0.2
  done
  if [ ! -s "$dir/chain.pem" ]; then
    echo "timestamp-server did not answer on 127.0.0.1:$port (is port 2112, its metrics', taken?):"
    cat "$dir/server.log"; return 1
  fi
  awk -v dir="$dir" '/BEGIN CERT/ { n++ } { print > (dir "/cert-" n ".pem") }' "$dir/chain.pem"
  cp "$dir/cert-$(grep -c 'BEGIN CERT' "$dir/chain.pem").pem" "$dir/root.pem"
  cert="$dir/chain.pem"
  [ "$trust" = root ] && cert="$dir/root.pem"
  cp "$stamp_source" "$dir/bundle.json"
  bundle timestamp --tsa "http://127.0.0.1:$port/api/v1/timestamp" --tsa-cert "$cert" "$dir/bundle.json" >"$dir/stamp.txt"
  bundle verify "${keys[@]}" --tsa-cert "$cert" "$dir/bundle.json" >"$dir/verify.txt" || { cat "$dir/verify.txt"; return 1; }
  # The token counted: verify judged the key at the TSA's time, under the trust given.
  if ! grep -q '^time: .* rfc3161 (TSA CN=Test TSA Timestamping' "$dir/verify.txt"; then
    cat "$dir/verify.txt"; echo "bundle verify did not count the TSA's token"; return 1
  fi
  if [ "$trust" = root ] && ! grep -q 'trusted through CN=Test TSA Root' "$dir/verify.txt"; then
    cat "$dir/verify.txt"; echo "the token was not checked up to the root"; return 1
  fi
  echo "   $name: $(grep -o 'trusted through [^)]*' "$dir/verify.txt"); $(grep -E '^VERIFIED' "$dir/verify.txt" | cut -d' ' -f1)"
  # openssl on its own: the token stamps SHA-256 of the decoded signature (base64url
  # in the bundle), under the root, the other certificates untrusted.
  jq -r .signature.sig "$dir/bundle.json" | tr -- '-_' '+/' | awk '{ while (length($0) % 4) $0 = $0 "="; print }' |
    base64 -d >"$dir/sig.bin"
  openssl ts -verify -in "$dir/bundle.json.tsr" -data "$dir/sig.bin" -CAfile "$dir/root.pem" \
    -untrusted "$dir/chain.pem" >"$dir/openssl.txt" 2>&1 || { cat "$dir/openssl.txt"; return 1; }
  echo "   $name: openssl ts -verify: $(grep -o 'Verification: OK' "$dir/openssl.txt")"
  kill "${tsa_pids[-1]}"
  wait "${tsa_pids[-1]}" 2>/dev/null || true
}
tsa_check "default server, --tsa-cert its /certchain" chain
tsa_check "--include-chain-in-response, --tsa-cert its root alone" root --include-chain-in-response

if [ "$mode" = all ]; then
  echo "== cosign verify-blob-attestation of certcut's envelopes, claims checked"
  # cosign_blob ENVELOPE KEY BLOB: cosign checks the signature under KEY and the
  # claims: that the statement names BLOB's SHA-256 as a subject and that its
  # predicateType is the one the envelope declares (--type: cosign's default,
  # "custom", is its own predicate type, which certcut never writes).
  cosign_blob() {
    cosign verify-blob-attestation --key "$2" --insecure-ignore-tlog \
      --type "$(payload "$1" | jq -r .predicateType)" --signature "$1" "$3" >"$work/cosign.log" 2>&1 ||
      { cat "$work/cosign.log"; return 1; }
    echo "   $(basename "$1"): verified by cosign against ${3#"$root/"}"
  }
  if [ -n "$corpus" ]; then
    cosign_blob "$work/gate.vsa.json" "$work/att/interop-attestor-1.pub.pem" "$corpus/$rfc0211"
    cosign_blob "$work/ref.vsa.json" "$work/att/interop-attestor-1.pub.pem" "$corpus/$ref"
    # and it does check the claims: another blob is refused
    if cosign verify-blob-attestation --key "$work/att/interop-attestor-1.pub.pem" --insecure-ignore-tlog \
      --type https://slsa.dev/verification_summary/v1 --signature "$work/gate.vsa.json" "$corpus/$ref" >/dev/null 2>&1; then
      echo "cosign accepted the gate VSA for a blob it does not name"; exit 1
    fi
    # nor under another key
    if cosign verify-blob-attestation --key examples/rfc0211/attestor/demo-attestor-1.pub.pem --insecure-ignore-tlog \
      --type https://slsa.dev/verification_summary/v1 --signature "$work/gate.vsa.json" "$corpus/$rfc0211" >/dev/null 2>&1; then
      echo "cosign accepted the gate VSA under a key that did not sign it"; exit 1
    fi
  fi
  for env in examples/rfc0211/attestations/*.json; do
    # Each committed envelope's file subject, in the example spec repository.
    blob="examples/rfc0211/spec-repo/$(payload "$env" | jq -r '[.subject[] | select(.digest.sha256)][0].name')"
    cosign_blob "$env" examples/rfc0211/attestor/demo-attestor-1.pub.pem "$blob"
  done
fi
echo "== interop ($mode) passed"
