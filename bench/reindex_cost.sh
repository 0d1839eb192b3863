#!/usr/bin/env bash
# reindex_cost.sh BASE_REV — what re-indexing linux-6.1 costs with this build
# against memgate built at BASE_REV, beside GNU Global in the same run:
# a re-index that finds nothing changed (`memgate index` again; `gtags -i`)
# and one after a file is edited (`global -u`). Each build gets its own copy
# of one full index (made by the base build once per run, copied), so neither
# sees the other's stamps; runs alternate base, head, gtags so that the
# machine's drift hits all alike; MEMGATE_EMBEDDER=none. Prints each run and
# the medians of CPU seconds (user + sys) and wall, with the ratios.
# Put it through the lock: it holds two kernel indexes and runs for minutes.
#
#   flock /tmp/memgate-fulltest.lock bench/reindex_cost.sh main
#   RUNS=5 MEMGATE_BASE_BIN=/path/memgate MEMGATE_REINDEX_FROM=/path/home bench/reindex_cost.sh main
#     (MEMGATE_REINDEX_FROM: a MEMGATE_HOME with a full index of the tree, copied instead of made)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: bench/reindex_cost.sh BASE_REV" >&2; exit 2; }
CACHE=${MEMGATE_BENCH_CACHE:-$HOME/.cache/memgate-bench}
K=$CACHE/linux-source-6.1
[ -f "$K/MAINTAINERS" ] || { echo "reindex_cost: no Linux tree in $K; run bench/run.sh once (it fetches it)" >&2; exit 1; }
command -v gtags >/dev/null || { echo "reindex_cost: GNU Global is missing; run 'scripts/setup.sh --bench'" >&2; exit 1; }
BIN=${MEMGATE_BIN:-$here/build/memgate}
BASE=${MEMGATE_BASE_BIN:-$("$here/bench/baseline.sh" "$1")}
RUNS=${RUNS:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/memgate-reindex.XXXXXX")
EDIT=kernel/sched/core.c
cp "$K/$EDIT" "$work/edit.orig"
trap 'cp "$work/edit.orig" "$K/$EDIT"; rm -rf "$work"' EXIT

cpu() { # label command... -> "label cpu wall"
  local label=$1
  shift
  /usr/bin/time -f "%U %S %e" -o "$work/time" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  read -r u s e < "$work/time"
  echo "$label $(awk "BEGIN{print $u + $s}") $e"
}
mg() { env MEMGATE_HOME="$work/home-$1" MEMGATE_EMBEDDER=none "$2" index "$K" --name linux --quiet; }
edit() { printf '\n/* reindex_cost %s */\n' "$1" >> "$K/$EDIT"; }

echo "## Re-index cost: linux-6.1, this build against $1, beside GNU Global ($RUNS runs each, alternating)"
echo
grep -m1 "model name" /proc/cpuinfo | sed 's/.*: /machine: /'
echo "cores: $(nproc); load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
if [ -n "${MEMGATE_REINDEX_FROM:-}" ]; then # a MEMGATE_HOME holding a full index of $K named linux
  cp -a "$MEMGATE_REINDEX_FROM" "$work/home-base"
else
  mg base "$BASE" >/dev/null
fi
cp -a "$work/home-base" "$work/home-head"
mkdir -p "$work/gtags"
(cd "$K" && gtags "$work/gtags")
mg head "$BIN" >/dev/null # the first run of a build records what the other left out
for i in $(seq "$RUNS"); do
  cpu noop-base env MEMGATE_HOME="$work/home-base" MEMGATE_EMBEDDER=none "$BASE" index "$K" --name linux --quiet
  cpu noop-head env MEMGATE_HOME="$work/home-head" MEMGATE_EMBEDDER=none "$BIN" index "$K" --name linux --quiet
  cpu noop-gtags sh -c "cd '$K' && gtags -i '$work/gtags'"
  edit "$i"
  cpu edit-base env MEMGATE_HOME="$work/home-base" MEMGATE_EMBEDDER=none "$BASE" index "$K" --name linux --quiet
  cpu edit-head env MEMGATE_HOME="$work/home-head" MEMGATE_EMBEDDER=none "$BIN" index "$K" --name linux --quiet
  cpu edit-global sh -c "cd '$K' && GTAGSROOT='$K' GTAGSDBPATH='$work/gtags' global -u"
done | tee "$work/runs" | sed 's/^/run: /'
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/runs" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {}
for k in sorted({r[0] for r in rows}):
    med[k] = [statistics.median(float(r[i]) for r in rows if r[0] == k) for i in (1, 2)]
print("\n| run | CPU s | wall s |")
print("| --- | ---: | ---: |")
for k in ("noop-base", "noop-head", "noop-gtags", "edit-base", "edit-head", "edit-global"):
    print(f"| {k} | {med[k][0]:.2f} | {med[k][1]:.2f} |")
for p, peer in (("noop", "noop-gtags"), ("edit", "edit-global")):
    b, h, g = med[p + "-base"], med[p + "-head"], med[peer]
    print(f"{p}: head / base CPU {h[0] / b[0]:.2f}, wall {h[1] / b[1]:.2f}; head / {peer.split('-')[1]} wall {h[1] / g[1]:.2f}")
PY
