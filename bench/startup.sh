#!/usr/bin/env bash
# bench/startup.sh — start-up and whole-process verify, both builds, in one
# interleaved run; bench/run.sh calls it, and it runs alone too:
#
#   bench/startup.sh CORPUS [WORK]
#
# It builds `bundle` twice (`go build`, which links cgo where a C compiler is
# found, and CGO_ENABLED=0 -trimpath as release archives ship it) and a Go
# hello world the same two ways, copies each binary to a new file (the peak RSS
# of a binary as the linker just wrote it depends on the page cache:
# docs/performance.md), then runs, RUNS rounds (default 41), each in turn:
#
#   hello, hello-static          the hello world (fmt.Println)
#   version, version-static      bundle version
#   verify, verify-static        bundle verify --host-key KEY reference-bundle
#   node                         the Node verifier on the same bundle
#
# and prints Markdown table rows: median [min–max] wall time and peak RSS, and
# the ratios (start-up against the hello world of the same build; verify against
# Node). Raw figures: WORK/startup.txt.
set -euo pipefail

corpus=${1:?usage: bench/startup.sh CORPUS [WORK]}
corpus=$(cd "$corpus" && pwd)
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false
work=${2:-${BENCH_WORK:-${TMPDIR:-/tmp}/certcut-bench}}
runs=${RUNS:-41}
peer=${PEER:-$(cd "$corpus/../.." && pwd)/bench/peer-verify.mjs}
mkdir -p "$work/hello" "$work/startup"
say() { echo "bench: $*" >&2; }

say "start-up: building bundle and a hello world, each with cgo and static"
cat >"$work/hello/go.mod" <<'MOD'
module hello

go 1.26
MOD
cat >"$work/hello/main.go" <<'GO'
package main

import "fmt"

func main() { fmt.Println("hello") }
GO
b=$work/startup
go build -o "$b/bundle.new" ./cmd/bundle
CGO_ENABLED=0 go build -trimpath -o "$b/bundle-static.new" ./cmd/bundle
go build -C "$work/hello" -o "$b/hello.new" .
CGO_ENABLED=0 go build -C "$work/hello" -trimpath -o "$b/hello-static.new" .
go build -o "$b/measure" ./bench/measure
for f in bundle bundle-static hello hello-static; do
  cp "$b/$f.new" "$b/$f" && rm "$b/$f.new"
done

key=$corpus/keys/v2-reference-4.pub.pem
ref=$corpus/evidence/v2-host-bundles/openwop-host-v2-reference.json
say "start-up and verify against Node, $runs interleaved rounds"
"$b/measure" -runs "$runs" -- \
  hello "$b/hello" --- \
  hello-static "$b/hello-static" --- \
  version "$b/bundle" version --- \
  version-static "$b/bundle-static" version --- \
  verify "$b/bundle" verify --host-key "$key" "$ref" --- \
  verify-static "$b/bundle-static" verify --host-key "$key" "$ref" --- \
  node node "$peer" "$key" "$ref" >"$work/startup.txt"

t=$work/startup.txt
f() { awk -v l="$1" -v n="$2" '$1 == l {print $n}' "$t"; }
wall() { awk -v m="$(f "$1" 3)" -v lo="$(f "$1" 4)" -v hi="$(f "$1" 5)" 'BEGIN {printf "%.2f ms [%.2f–%.2f]", m, lo, hi}'; }
rss() { awk -v k="$(f "$1" 7)" 'BEGIN {printf "%.1f MiB", k/1024}'; }
r() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }
for s in "" -static; do
  build=cgo
  [ -n "$s" ] && build=static
  echo "| start-up, \`bundle version\` ($build build) | $(wall version$s), $(rss version$s) | hello world, same build: $(wall hello$s), $(rss hello$s) | $(r "$(f version$s 3)" "$(f hello$s 3)")× its wall time (goal ≤ 1.5) |"
done
for s in "" -static; do
  build=cgo
  [ -n "$s" ] && build=static
  echo "| \`bundle verify\`, reference bundle ($build build) | $(wall verify$s), $(rss verify$s) | Node verifier: $(wall node), $(rss node) | $(r "$(f node 3)" "$(f verify$s 3)")× faster (goal ≥ 15), $(r "$(f verify$s 7)" "$(f node 7)") of its peak RSS (goal ≤ 0.33) |"
done
