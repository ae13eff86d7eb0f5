#!/usr/bin/env bash
# A Time-Stamp Authority on 127.0.0.1, to try certcut's trusted time by hand.
#
#   scripts/tsa-local.sh [--dir DIR] [--name NAME]
#
# It makes a CA and a TSA certificate (time-stamping extended key usage) with
# OpenSSL in a temporary directory, answers RFC 3161 queries with
# `openssl ts -reply` over HTTP on a loopback port, and prints
#
#   export TSA_URL=http://127.0.0.1:PORT
#   export TSA_CERT=/tmp/certcut-tsa-local-…/ca.pem
#
# for your shell (bundle timestamp --tsa "$TSA_URL" --tsa-cert "$TSA_CERT").
# It serves until Ctrl-C, then removes its keys. For trying things out only:
# production bundles are stamped by a TSA others trust (docs/timestamps.md).
# Needs openssl and Go (it builds internal/cmd/tsa-local, a small HTTP carrier).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
if ! command -v openssl >/dev/null 2>&1; then
  echo "tsa-local: openssl is not installed (apt-get install openssl)" >&2
  exit 3
fi
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -buildvcs=false -o "$bin/tsa-local" ./internal/cmd/tsa-local
"$bin/tsa-local" "$@" &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null || true' INT TERM
status=0
wait "$pid" || status=$?
if kill -0 "$pid" 2>/dev/null; then
  status=0
  wait "$pid" || status=$?
fi
exit "$status"
