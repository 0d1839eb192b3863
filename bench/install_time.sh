#!/usr/bin/env bash
# bench/install_time.sh — how long `make run` takes from a clean clone to
# "memgate serving on ..." (issue 40, point 8), run by `make bench`.
#
# Each run clones this checkout's HEAD into a fresh directory (git clone, no
# node_modules, no build/), then runs `make run` there with a fresh
# MEMGATE_HOME and a free port, and stops the server as soon as it says it
# serves. The Debian packages are already installed (setup.sh only checks
# them), and npm's own cache (~/.npm) holds the grammar tarballs, so `npm ci`
# unpacks rather than downloads: the figure is the build, the first index of
# the checkout and the start, on this machine's cores.
#
# Runs, in the same invocation so their ratio is meaningful on a noisy machine:
#   new, warm  make run with the grammar objects' cache as it is
#              (scripts/grammar-obj.sh: keyed by lockfile entry, compiler, flags)
#   new, cold  make run with an empty grammar cache (every grammar compiled)
#   old, warm  the way make run went before (issue 40: `scripts/setup.sh`
#              with the tests' packages and tools, then one compile at a time,
#              make without -j), the baseline
# For each: wall seconds and the CPU seconds of everything it ran.
# usage: bench/install_time.sh [--no-warm] [--no-cold] [--no-old]   (BENCH_INSTALL_RUNS=N: runs of each, default 1)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
warm_run=1 cold=1 old=1
for a in "$@"; do
  case "$a" in
    --no-warm) warm_run=0 ;;
    --no-cold) cold=0 ;;
    --no-old) old=0 ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install_time: unknown option '$a' (try --help)" >&2; exit 2 ;;
  esac
done
runs=${BENCH_INSTALL_RUNS:-1}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/memgate-install.XXXXXX")
pg=""
cleanup() {
  [ -n "$pg" ] && kill -TERM -- "-$pg" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# one run: LABEL CACHE COMMAND...; prints "WALL CPU" (seconds to "serving"; CPU of all it ran)
measure() {
  local label=$1 cache=$2
  shift 2
  local dir=$tmp/$label
  rm -rf "$dir"
  git clone -q --no-hardlinks "$here" "$dir/clone"
  mkdir -p "$dir/home" "$cache"
  local log=$dir/log t0 t1
  t0=$EPOCHREALTIME
  # its own process group (cleanup stops it all on failure); the wrapper
  # writes its children's CPU time (bash's times: make, compilers, index,
  # server, all waited for) once the command ends, and stamps each line of
  # output with the time it came (bash's clock: no process per line)
  MEMGATE_HOME=$dir/home MEMGATE_LISTEN=127.0.0.1:0 MEMGATE_GRAMMAR_CACHE=$cache \
    setsid bash -c 'cd "$1" && out=$2 && shift 2 && { { "$@"; times >"$out"; } 2>&1 |
      while IFS= read -r l; do printf "%s %s\n" "$EPOCHREALTIME" "$l"; done; }' _ "$dir/clone" "$dir/cpu" "$@" \
    >"$log" 2>&1 </dev/null &
  pg=$!
  trap 'kill -TERM -- "-$pg" 2>/dev/null || true' EXIT # (this runs in a subshell: the caller's trap is not here)
  while ! grep -q 'memgate serving on' "$log" 2>/dev/null; do
    if ! kill -0 "$pg" 2>/dev/null; then
      echo "install_time: '$label' ended before serving; its output:" >&2
      tail -30 "$log" >&2
      exit 1
    fi
    sleep 0.1
  done
  t1=$EPOCHREALTIME
  # stop the server (by its pid, found in this run's process group); make run then ends
  local spid
  spid=$(ps -o pid=,args= -g "$pg" | awk '$3 == "serve" {print $1}')
  [ -n "$spid" ] && kill -TERM $spid
  wait "$pg" 2>/dev/null || true
  trap - EXIT
  # times' second line: the children's user and system time, e.g. "1m2.500s 0m3.250s"
  local cpu
  cpu=$(sed -n 2p "$dir/cpu" 2>/dev/null | awk '{
    s = 0
    for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] }
    print s }')
  # where the wall time went: setup (until the first compile), compiling
  # (until the archive), linking (until the first line of scripts/run.sh),
  # the first index and status (until its first search), the rest
  awk -v t0="$t0" -v label="$label" '
    function at(k) { if (!(k in t)) t[k] = $1 }
    $2 == "cc" || $2 == "clang" { at("cc") }
    $2 == "ar" { at("ar") }
    ("ar" in t) && $2 != "cc" && $2 != "ar" && $2 != "mkdir" { at("run") }
    $2 == "$" && $3 == "memgate" && $4 == "search" { at("search") }
    /memgate serving on/ { at("serving") }
    END {
      n = split("cc ar run search serving", k, " "); prev = t0; out = ""
      split("setup compile link index-and-status searches-and-start", name, " ")
      for (i = 1; i <= n; i++) if (k[i] in t) { out = out sprintf(" %s %.1f", name[i], t[k[i]] - prev); prev = t[k[i]] }
      printf "install_time: %s phases (wall s):%s\n", label, out > "/dev/stderr"
    }' "$log"
  rm -rf "$dir"
  printf '%.1f %.1f\n' "$(echo "$t1 - $t0" | bc -l)" "${cpu:-0}"
}

# ---- the runs ------------------------------------------------------------------------
report() { # LABEL "WALL CPU"...
  local label=$1
  shift
  local w c
  w=$(printf '%s\n' "$@" | awk '{print $1}' | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
  c=$(printf '%s\n' "$@" | awk '{print $2}' | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
  printf '| %s | %s | %s | %s |\n' "$label" "$w" "$c" "$(printf '%s; ' "$@" | sed 's/; $//')"
  eval "res_${label//[^a-z]/_}='$w $c'"
}

warm=${MEMGATE_GRAMMAR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memgate/grammars}
echo "## Install time: clean clone to \"serving\" (make run)"
echo
echo "Machine reference (same run): $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(git -C "$here" rev-parse --short HEAD)"
echo
echo "| run | wall s (median) | CPU s (median) | each run (wall CPU) |"
echo "| --- | --- | --- | --- |"
declare -a r
if [ "$warm_run" = 1 ]; then
  r=(); for i in $(seq "$runs"); do r+=("$(measure new-warm "$warm" make run)"); done
  report "make run, warm grammar cache" "${r[@]}"
fi
if [ "$cold" = 1 ]; then
  r=(); for i in $(seq "$runs"); do rm -rf "$tmp/cold-cache"; r+=("$(measure new-cold "$tmp/cold-cache" make run)"); done
  report "make run, cold grammar cache" "${r[@]}"
fi
if [ "$old" = 1 ]; then
  # before: setup with the tests' packages and tools, then make without -j
  r=(); for i in $(seq "$runs"); do
    r+=("$(measure old-warm "$warm" bash -c 'scripts/setup.sh && make --no-print-directory build/memgate && scripts/run.sh build/memgate')")
  done
  report "before: full setup, serial build, warm cache" "${r[@]}"
fi
echo
[ "$warm_run" = 1 ] || exit 0
nw=${res_make_run__warm_grammar_cache% *}
echo "Target (issue 40): at most half of 131 s, 65.5 s, on 2 cores; make run, warm cache: ${nw} s wall$(
  [ -n "${res_before__full_setup__serial_build__warm_cache:-}" ] &&
    awk -v n="$nw" -v o="${res_before__full_setup__serial_build__warm_cache% *}" 'BEGIN {printf ", %.2fx faster than before in the same run", o / n}')."
