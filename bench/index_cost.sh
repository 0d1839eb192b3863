#!/usr/bin/env bash
# index_cost.sh BASE_REV — what a full index of linux-6.1 costs with this
# build against memgate built at BASE_REV, in the same run: RUNS (default 2)
# full runs of each into a fresh data directory, alternating the builds so
# that the machine's drift hits both alike; MEMGATE_EMBEDDER=none. Prints
# each run and the medians: CPU seconds (user + sys), wall, peak RSS, and
# the size of what the run leaves in the data directory (the index with its
# WAL and the saved repo map graph), with the ratios to the baseline.
#
#   bench/index_cost.sh 2dfc8f3          issue 18's targets: <= +25% CPU,
#   RUNS=3 bench/index_cost.sh REV       <= +30% size, RSS <= 1 GiB
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: bench/index_cost.sh BASE_REV" >&2; exit 2; }
CACHE=${MEMGATE_BENCH_CACHE:-$HOME/.cache/memgate-bench}
K=$CACHE/linux-source-6.1
[ -f "$K/MAINTAINERS" ] || { echo "index_cost: no Linux tree in $K; run bench/run.sh once (it fetches it)" >&2; exit 1; }
BIN=${MEMGATE_BIN:-$here/build/memgate}
BASE=$("$here/bench/baseline.sh" "$1")
RUNS=${RUNS:-2}
work=$(mktemp -d "${TMPDIR:-/tmp}/memgate-indexcost.XXXXXX")
trap 'rm -rf "$work"' EXIT

run() { # label binary -> one line: label cpu wall_s rss_kb bytes
  local home=$work/home-$1
  rm -rf "$home"
  mkdir -p "$home"
  MEMGATE_HOME=$home MEMGATE_EMBEDDER=none /usr/bin/time -f "%U %S %e %M" -o "$work/time" \
    "$2" index "$K" --name linux --quiet >/dev/null
  read -r u s e m < "$work/time"
  echo "$1 $(awk "BEGIN{print $u + $s}") $e $m $(du -sb "$home/repos" | cut -f1)"
  rm -rf "$home"
}

echo "## Index cost: linux-6.1, this build against $1 ($RUNS runs each, alternating)"
echo
grep -m1 "model name" /proc/cpuinfo | sed 's/.*: /machine: /'
echo "cores: $(nproc)"
echo
for i in $(seq "$RUNS"); do
  run base "$BASE"
  run head "$BIN"
done | tee "$work/runs" | sed 's/^/run: /'
python3 - "$work/runs" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {k: [statistics.median(float(r[i]) for r in rows if r[0] == k) for i in range(1, 5)] for k in ("base", "head")}
print("\n| build | CPU s | wall s | peak RSS MB | data MB |")
print("| --- | ---: | ---: | ---: | ---: |")
for k in ("base", "head"):
    c, w, m, b = med[k]
    print(f"| {k} | {c:.1f} | {w:.1f} | {m / 1024:.0f} | {b / 1e6:.1f} |")
(cb, wb, mb, bb), (ch, wh, mh, bh) = med["base"], med["head"]
print(f"\nhead / base: CPU {ch / cb - 1:+.1%}, size {bh / bb - 1:+.1%}, peak RSS {mh / 1024:.0f} MB")
PY
