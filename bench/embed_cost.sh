#!/bin/sh
# embed_cost.sh — what each embedder costs an index run: the same tree indexed
# from scratch three times in one run, with embedder = none, builtin and model
# (one fresh data directory each), the process's CPU seconds (user + system,
# /usr/bin/time), the embedding pass's wall seconds, the index's size on disk
# (database, column file). docs/benchmarks.md has the figures on linux-6.1.
#
# usage: bench/embed_cost.sh TREE [BIN]    (long on a kernel: run it through the
#        benchmark lock, flock /tmp/memgate-fulltest.lock bench/embed_cost.sh ...)
set -eu
TREE=${1:?usage: bench/embed_cost.sh TREE [BIN]}
BIN=${2:-$(dirname "$0")/../build/memgate}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
command -v /usr/bin/time >/dev/null || { echo "embed_cost: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
echo "| embedder | CPU s (user+sys) | CPU s more than none | embedding pass s | vectors | index db MB | column file MB |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
base=
for e in none builtin model; do
    h="$W/$e"
    MEMGATE_HOME=$h MEMGATE_EMBEDDER=$e MEMGATE_WATCH=off /usr/bin/time -f '%U %S' -o "$W/time" \
        "$BIN" index "$TREE" --name tree --json > "$W/out.json"
    cpu=$(awk '{printf "%.1f", $1 + $2}' "$W/time")
    [ -n "$base" ] || base=$cpu
    more=$(awk -v a="$cpu" -v b="$base" 'BEGIN{printf "%.1f", a - b}')
    vs=$(python3 -c 'import json,sys; j=json.loads(open(sys.argv[1]).read().strip().split("\n")[-1]); v=j["vectors"]; print("%.1f %d" % (v["seconds"], v["chunks"]))' "$W/out.json")
    db=$(du -sm "$h/repos/tree.db" | cut -f1)
    vec=$( [ -f "$h/repos/tree.db.vec" ] && du -sm "$h/repos/tree.db.vec" | cut -f1 || echo 0)
    echo "| $e | $cpu | $more | ${vs% *} | ${vs#* } | $db | $vec |"
done
