#!/usr/bin/env bash
# bench/history.sh — the git history binder against a keyring at scale:
#
#   bench/history.sh CORPUS WORK BIN MEASURE [N] [RUNS]
#
# Builds (once, under WORK/in/history-N) a git repository holding the corpus's
# RFCS/, spec/ and evidence/ (its 12 bundles) plus N distinct signed bundles
# from WORK/in/scale (bench/gen), host.example listed at tier 1, committed on
# branch main; branch pr flips RFC 0211 to Accepted (main has it Draft). Then it
# times, RUNS rounds interleaved (bench/measure):
#
#   history  gate accepted --rfc RFCS/0211-*.md --history-base main (PEM keys:
#            every origin is bound by git history or not at all)
#   keyring  the same with every key pinned with its origin in a keyring
#   flips    gate flips --base main on branch pr (the history binder, limited to
#            the merge base)
#
# and prints a Markdown row per figure. bench/run.sh runs it with N=1000.
set -euo pipefail
corpus=$(cd "$1" && pwd) work=$2 bin=$3 measure=$4 n=${5:-1000} runs=${6:-5}
h=$work/in/history-$n
say() { echo "bench: $*" >&2; }
g() { git -C "$h" -c user.name=bench -c user.email=bench@example.com -c commit.gpgsign=false "$@"; }
if [ ! -d "$h/.git" ]; then
  say "building the history repository ($n bundles and the corpus's) in $h"
  rm -rf "$h" && mkdir -p "$h"
  cp -r "$corpus/RFCS" "$corpus/spec" "$corpus/evidence" "$h/"
  chmod -R u+w "$h"
  for ((i = 0; i < n; i++)); do
    f=$(printf 'scale-%06d.json' "$i")
    cp "$work/in/scale/$f" "$h/evidence/v2-host-bundles/$f"
  done
  python3 - "$h/evidence/host-tiers.json" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["hosts"].append({"name": "bench scale host", "origins": ["https://host.example"], "tier": 1})
open(p, "w").write(json.dumps(d, indent=2) + "\n")
PY
  rfc=$(ls "$h"/RFCS/0211-*.md)
  sed -i 's/| `Accepted` /| `Draft`    /' "$rfc"
  g init -q -b main
  g add -A && g commit -q -m "evidence, RFC 0211 Draft"
  g checkout -q -b pr
  sed -i 's/| `Draft`    /| `Accepted` /' "$rfc"
  g commit -q -am "RFC 0211: Accepted"
  mkdir -p "$h.keys"
  cp "$corpus"/keys/*.pub.pem "$work/in/repo/keys/test-host-1.pub.pem" "$h.keys/"
  ring=$h.ring.json
  rm -f "$ring"
  "$bin" keys trust --from-pem "$corpus/keys/v2-reference-4.pub.pem" --key-id v2-reference-4 --host-name openwop-host-v2-reference --origin http://127.0.0.1:3838 --keyring "$ring" >/dev/null
  "$bin" keys trust --from-bundle "$corpus/evidence/v2-host-bundles/myndhyve-2.45.25.json" --origin https://api.myndhyve.ai --keyring "$ring" >/dev/null
  "$bin" keys trust --from-bundle "$corpus/evidence/v2-host-bundles/openwop-workflow-engine-image-digest.json" --origin https://app.openwop.dev --origin https://api.openwop.dev --keyring "$ring" >/dev/null
  "$bin" keys trust --from-pem "$work/in/repo/keys/test-host-1.pub.pem" --key-id test-host-1 --host-name bench --origin https://host.example --keyring "$ring" >/dev/null
fi
rfc=$(ls "$h"/RFCS/0211-*.md)
say "history binder against keyring, $n + 12 bundles, $runs rounds"
cd "$h"
"$measure" -runs "$runs" -ok 0,1,2 -- \
  history "$bin" gate accepted --repo "$h" --rfc "$rfc" --host-key "$h.keys" --history-base main --format json --- \
  keyring "$bin" gate accepted --repo "$h" --rfc "$rfc" --keyring "$h.ring.json" --format json --- \
  flips "$bin" gate flips --repo "$h" --base main --host-key "$h.keys" --format json >"$work/history.txt"
field() { awk -v l="$2" -v f="$3" '$1 == l {print $f}' "$1"; }
t=$work/history.txt
hm=$(field "$t" history 3) km=$(field "$t" keyring 3) fm=$(field "$t" flips 3)
echo "| \`gate accepted --rfc 0211\`, $n + 12 bundles in git, \`--history-base main\` | $(awk -v w="$hm" 'BEGIN{printf "%.2f s", w/1000}') [$(field "$t" history 4)–$(field "$t" history 5) ms] | same bundles pinned in a keyring: $(awk -v w="$km" 'BEGIN{printf "%.2f s", w/1000}') [$(field "$t" keyring 4)–$(field "$t" keyring 5) ms] | $(awk -v a="$hm" -v b="$km" 'BEGIN{printf "%.2f", a/b}')× (goal ≤ 2) |"
echo "| \`gate flips --base main\` flipping RFC 0211, same repository | $(awk -v w="$fm" 'BEGIN{printf "%.2f s", w/1000}') [$(field "$t" flips 4)–$(field "$t" flips 5) ms] | — | goal < 3 s |"
