#!/usr/bin/env bash
# bench/run.sh — reproduce every figure of docs/performance.md on this machine.
#
#   bench/run.sh CORPUS [N]
#
# CORPUS is the OpenWOP corpus (../shared/corpus/openwop in the workspace); N is
# how many distinct bundles the scale runs judge (default 10000). It builds
# certcut twice (as `go build` builds it, and static as release archives ship
# it), writes its inputs once (bench/gen: N bundles made from the reference
# bundle, a spec repository, a 500-row mint), then prints one Markdown table:
#
#   in-process   Go benchmarks, -count COUNT (default 6): median [min–max] and the
#                ratio of medians against encoding/json decoding the same bytes
#   process      RUNS rounds (default 21) of certcut and the Node verifier
#                (../shared/bench/peer-verify.mjs) side by side, interleaved:
#                median [min–max] wall time and peak RSS, and their ratios
#   scale        gate accepted, census and verify over 1,000, 3,000 and N
#                bundles, SCALE_RUNS rounds (default 3): median wall time, time
#                per bundle, cores busy (CPU over wall), peak RSS
#   mint         `bundle mint` (500 rows) against `bundle verify` of what it
#                wrote: in the process, the work of each paired at every iteration
#                (BenchmarkMintVersusVerify500), and as processes, wall time and CPU
#   start-up     bench/startup.sh: `bundle version` against a Go hello world built
#                the same way, and `bundle verify` against the Node verifier, for
#                the cgo and the static build, 41 interleaved rounds
#
# Environment: RUNS, COUNT, SCALE_RUNS, BENCH_WORK (where inputs and binaries go; default a
# directory under the system's temporary directory, reused between runs),
# PEER (the Node verifier; default ../shared/bench/peer-verify.mjs beside the
# corpus's shared/ directory). Needs Go and node; Linux (peak RSS is
# ru_maxrss). Expect about ten minutes on two cores.
set -euo pipefail

corpus=${1:?usage: bench/run.sh CORPUS [N]  (CORPUS: ../shared/corpus/openwop)}
n=${2:-10000}
corpus=$(cd "$corpus" && pwd)
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false
export CERTCUT_CORPUS=$corpus # the Go benchmarks read the same corpus
runs=${RUNS:-21}
scaleruns=${SCALE_RUNS:-3}
count=${COUNT:-6}
work=${BENCH_WORK:-${TMPDIR:-/tmp}/certcut-bench}
peer=${PEER:-$(cd "$corpus/../.." && pwd)/bench/peer-verify.mjs}
mkdir -p "$work"
sizes=$(printf '%s\n' 1000 3000 "$n" | awk -v n="$n" '$1 <= n' | sort -nu | tr '\n' ' ')

say() { echo "bench: $*" >&2; }

say "building certcut and the measuring tool into $work"
go build -o "$work/bundle" ./cmd/bundle
CGO_ENABLED=0 go build -trimpath -o "$work/bundle-static" ./cmd/bundle
go build -o "$work/measure" ./bench/measure
bin=$work/bundle
measure=$work/measure

say "writing inputs ($n bundles; kept for the next run)"
go run ./bench/gen -corpus "$corpus" -out "$work/in" -n "$n"
repo=$work/in/repo
for k in $sizes; do
  d=$work/in/n$k
  if [ ! -d "$d" ] || [ "$(ls "$d" | wc -l)" -ne "$k" ]; then
    rm -rf "$d" && mkdir -p "$d"
    for ((i = 0; i < k; i++)); do
      f=$(printf 'scale-%06d.json' "$i")
      ln "$work/in/scale/$f" "$d/$f"
    done
  fi
done

key=$corpus/keys/v2-reference-4.pub.pem
ref=$corpus/evidence/v2-host-bundles/openwop-host-v2-reference.json

# stats NAME FILE: median, min and max of the ns/op of benchmark NAME in FILE.
stats() {
  grep -E "^Benchmark$1-[0-9]+ " "$2" | awk '{print $3}' | sort -n |
    awk '{v[NR]=$1} END {m = NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.3f %.3f %.3f\n", m/1e6, v[1]/1e6, v[NR]/1e6}'
}
# metric NAME UNIT FILE: median, min and max of the figure reported in UNIT by
# benchmark NAME in FILE (a custom metric such as mint/verify).
metric() {
  grep -E "^Benchmark$1-[0-9]+ " "$3" | awk -v u="$2" '{for (i = 2; i <= NF; i++) if ($i == u) print $(i-1)}' | sort -g |
    awk '{v[NR]=$1} END {m = NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%s %s %s\n", m, v[1], v[NR]}'
}
scale() { awk -v n="$1" 'BEGIN {printf "%.3f", n/1e6}'; }
ms() { awk -v m="$1" -v lo="$2" -v hi="$3" 'BEGIN {printf "%.2f ms [%.2f–%.2f]", m, lo, hi}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }

say "in-process benchmarks ($count rounds, each running every benchmark once, so that load falls on all alike)"
: >"$work/verify.bench"
: >"$work/mint.bench"
for ((i = 0; i < count; i++)); do
  go test ./verify -run '^$' -bench '^Benchmark(Verify|DecodeAny)(Largest|Reference)$' -benchmem -count 1 >>"$work/verify.bench"
  go test ./mint -run '^$' -bench '^BenchmarkMintVersusVerify500$' -count 1 >>"$work/mint.bench"
done

say "whole process, $runs rounds, interleaved with the Node verifier"
"$measure" -runs "$runs" -- \
  certcut "$bin" verify --host-key "$key" "$ref" --- \
  certcut-static "$work/bundle-static" verify --host-key "$key" "$ref" --- \
  node node "$peer" "$key" "$ref" >"$work/process.txt"

say "scale runs (gate accepted, census, verify) over $sizes bundles"
: >"$work/scale.txt"
for k in $sizes; do
  d=$work/in/n$k
  "$measure" -runs "$scaleruns" -- \
    "gate-$k" "$bin" gate accepted --repo "$repo" --bundles "$d" --keyring "$repo/keyring.json" \
      --require openwop.requirement.0211.a2a-error-data-shape --- \
    "census-$k" "$bin" census --bundles "$d" --host-key "$repo/keys" --prefix openwop.requirement.0211. --- \
    "verify-$k" sh -c 'exec "$0" verify --host-key "$1" "$2"/*.json' "$bin" "$repo/keys" "$d" >>"$work/scale.txt"
done

say "mint, 500 rows, against verifying what it wrote ($runs rounds)"
m=$work/in/mint
mintargs=(mint --force --out "$work/minted.json" --key "$m/host.key.pem" --key-id bench-host-1
  --build commit:4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 --suite-version 2.45.30 --spec-artifacts-version 2.45.30
  --discovery-file "$m/discovery.json" --discovery-url https://host.example --rows "$m/rows.json"
  --generated-at 2026-11-20T09:30:00Z)
"$bin" "${mintargs[@]}" >/dev/null
"$measure" -runs "$runs" -- mint "$bin" "${mintargs[@]}" --- \
  verify "$bin" verify --host-key "$m/bench-host-1.pub.pem" "$work/minted.json" >"$work/mint.txt"

# ---- the table ----
field() { awk -v l="$2" -v f="$3" '$1 == l {print $f}' "$1"; }
echo
echo "| Work | certcut | Yardstick | Ratio |"
echo "|---|---|---|---|"
for b in Largest Reference; do
  read -r vm vlo vhi < <(stats "Verify$b" "$work/verify.bench")
  read -r dm dlo dhi < <(stats "DecodeAny$b" "$work/verify.bench")
  echo "| in-process verify, $b bundle | $(ms "$vm" "$vlo" "$vhi") | encoding/json into any: $(ms "$dm" "$dlo" "$dhi") | $(ratio "$vm" "$dm") (goal < 1.0) |"
done
p=$work/process.txt
for c in certcut certcut-static; do
  echo "| whole process \`bundle verify\`, reference bundle ($c) | $(ms "$(field "$p" $c 3)" "$(field "$p" $c 4)" "$(field "$p" $c 5)"), $(awk -v k="$(field "$p" $c 7)" 'BEGIN{printf "%.1f", k/1024}') MiB | Node verifier: $(ms "$(field "$p" node 3)" "$(field "$p" node 4)" "$(field "$p" node 5)"), $(awk -v k="$(field "$p" node 7)" 'BEGIN{printf "%.1f", k/1024}') MiB | $(ratio "$(field "$p" node 3)" "$(field "$p" $c 3)")× faster (goal ≥ 15), $(ratio "$(field "$p" $c 7)" "$(field "$p" node 7)") of its RSS (goal ≤ 0.33) |"
done
s=$work/scale.txt
for cmd in gate census verify; do
  for k in $sizes; do
    l=$cmd-$k
    [ -n "$(field "$s" "$l" 3)" ] || continue
    echo "| \`$cmd\` over $k bundles | $(awk -v w="$(field "$s" "$l" 3)" 'BEGIN{printf "%.1f s", w/1000}'), $(awk -v w="$(field "$s" "$l" 3)" -v k="$k" 'BEGIN{printf "%.2f ms", w/k}') per bundle, $(field "$s" "$l" 10) cores, $(awk -v r="$(field "$s" "$l" 7)" 'BEGIN{printf "%.0f", r/1024}') MiB peak RSS | — | goal: flat per bundle, ≤ 512 MiB, 2 cores |"
  done
done
read -r mm mlo mhi < <(metric MintVersusVerify500 mint-ns/op "$work/mint.bench")
read -r vm vlo vhi < <(metric MintVersusVerify500 verify-ns/op "$work/mint.bench")
read -r rm rlo rhi < <(metric MintVersusVerify500 mint/verify "$work/mint.bench")
echo "| mint 500 rows, in-process work (paired) | $(ms "$(scale "$mm")" "$(scale "$mlo")" "$(scale "$mhi")") | verify of its output: $(ms "$(scale "$vm")" "$(scale "$vlo")" "$(scale "$vhi")") | $(awk -v m="$rm" -v lo="$rlo" -v hi="$rhi" 'BEGIN {printf "%.2f× [%.2f–%.2f]", m, lo, hi}') (goal ≤ 1.5) |"
t=$work/mint.txt
echo "| mint 500 rows, whole process | $(field "$t" mint 3) ms wall, $(field "$t" mint 6) ms CPU | \`bundle verify\` of its output: $(field "$t" verify 3) ms wall, $(field "$t" verify 6) ms CPU | wall $(ratio "$(field "$t" mint 3)" "$(field "$t" verify 3)")×, CPU $(ratio "$(field "$t" mint 6)" "$(field "$t" verify 6)")× (goal ≤ 1.5) |"
# Start-up against a hello world built the same way, and verify against Node, for
# both builds, in one interleaved run (bench/startup.sh).
bench/startup.sh "$corpus" "$work"
echo
echo "Raw figures: $work/{verify.bench,mint.bench,process.txt,scale.txt,mint.txt,startup.txt}"

# ---- the git history binder against a keyring, 1,000 bundles (bench/history.sh) ----
echo
echo "| History binder | certcut | Yardstick | Ratio |"
echo "|---|---|---|---|"
bench/history.sh "$corpus" "$work" "$bin" "$measure" 1000 "${HISTORY_RUNS:-5}"
