#!/usr/bin/env bash
# baseline.sh REV — build memgate at git revision REV once, in a worktree
# under the bench cache ($MEMGATE_BENCH_CACHE, default ~/.cache/memgate-bench),
# and print the binary's path. The benches that compare with an older
# memgate in the same run (mcp_load.sh, index_cost.sh) take it from here.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: bench/baseline.sh REV" >&2; exit 2; }
CACHE=${MEMGATE_BENCH_CACHE:-$HOME/.cache/memgate-bench}
rev=$(git -C "$here" rev-parse --short "$1")
tree=$CACHE/baseline-$rev
if [ ! -x "$tree/build/memgate" ]; then
  echo "baseline: building $rev in $tree (once)" >&2
  mkdir -p "$CACHE"
  [ -d "$tree" ] || git -C "$here" worktree add --detach "$tree" "$rev" >/dev/null
  [ -e "$tree/third_party/grammars/node_modules" ] ||
    ln -s "$here/third_party/grammars/node_modules" "$tree/third_party/grammars/node_modules"
  log=$(mktemp "${TMPDIR:-/tmp}/memgate-baseline.XXXXXX")
  nice make -C "$tree" -j"$(nproc)" build/memgate > "$log" 2>&1 ||
    { tail -20 "$log" >&2; rm -f "$log"; echo "baseline: $rev does not build" >&2; exit 1; }
  rm -f "$log"
fi
echo "$tree/build/memgate"
