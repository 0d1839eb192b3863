#!/usr/bin/env bash
# bench/first_run.sh — what a fresh data directory's first `memgate index`
# costs with the rule databases compiled into the binary (the default) and
# without them (MEMGATE_SHIPPED_RULES=off: the secret and injection rules
# compiled at run time, as every binary did before 2026-12-01), the same
# binary, alternating, RUNS (default 3) runs each. Prints CPU seconds (user +
# sys), wall seconds and peak RSS of each run, the medians, and what the
# second mode's cache directory holds (the first's stays empty).
#
#   bench/first_run.sh [TREE]     TREE: default linux-6.1/kernel from the bench cache,
#                                 else this checkout's src/
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
CACHE=${MEMGATE_BENCH_CACHE:-$HOME/.cache/memgate-bench}
BIN=${MEMGATE_BIN:-$here/build/memgate}
TREE=${1:-$CACHE/linux-source-6.1/kernel}
[ -d "$TREE" ] || TREE=$here/src
RUNS=${RUNS:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/memgate-firstrun.XXXXXX")
trap 'rm -rf "$work"' EXIT

run() { # mode(on|off) -> "cpu wall rss_kb cache_files"
  local home=$work/home-$1
  rm -rf "$home"
  mkdir -p "$home"
  if [ "$1" = off ]; then export MEMGATE_SHIPPED_RULES=off; else unset MEMGATE_SHIPPED_RULES; fi
  MEMGATE_HOME=$home MEMGATE_EMBEDDER=none /usr/bin/time -f "%U %S %e %M" -o "$work/time" \
    "$BIN" index "$TREE" --name first --quiet >/dev/null
  unset MEMGATE_SHIPPED_RULES
  read -r u s e m < "$work/time"
  echo "$(awk "BEGIN{print $u + $s}") $e $m $(find "$home/cache" -type f 2>/dev/null | wc -l)"
  rm -rf "$home"
}
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

t0=$(date +%s%N); head -c 268435456 /dev/zero | sha256sum > /dev/null; t1=$(date +%s%N)
echo "## First index in a fresh data directory: rule databases compiled in, or compiled at run time"
echo
echo "Machine reference (same run): $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)," \
  "sha256 $(awk -v ns=$((t1 - t0)) 'BEGIN {printf "%.0f", 268.435456 / (ns / 1e9)}') MB/s;" \
  "tree $TREE ($(du -sm "$TREE" | cut -f1) MB); $("$BIN" --version | head -1)"
echo
echo "| mode | CPU s (median) | wall s (median) | peak RSS MB (median) | files in the cache after | each run (CPU wall RSS-KB) |"
echo "| --- | ---: | ---: | ---: | ---: | --- |"
declare -a on off
for i in $(seq "$RUNS"); do
  on+=("$(run on)")
  off+=("$(run off)")
done
row() { # label runs...
  local label=$1
  shift
  printf '| %s | %s | %s | %s | %s | %s |\n' "$label" \
    "$(printf '%s\n' "$@" | awk '{print $1}' | median)" "$(printf '%s\n' "$@" | awk '{print $2}' | median)" \
    "$(printf '%s\n' "$@" | awk '{print $3}' | median | awk '{printf "%.0f", $1 / 1024}')" \
    "$(printf '%s\n' "$@" | awk '{print $4}' | median)" "$(printf '%s; ' "$@" | sed 's/; $//')"
}
row "compiled in (default)" "${on[@]}"
row "compiled at run time (MEMGATE_SHIPPED_RULES=off)" "${off[@]}"
