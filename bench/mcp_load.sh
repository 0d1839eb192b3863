#!/usr/bin/env bash
# bench/mcp_load.sh — MCP over Streamable HTTP under load (bench/run.sh runs
# it; it runs alone too).
#
#   bench/mcp_load.sh                      index the Linux tree, then measure
#   BENCH_HOME=DIR bench/mcp_load.sh       use DIR's index (repo id "linux")
#   BENCH_BASELINE=REV bench/mcp_load.sh   the same load on memgate built at
#                                          git revision REV, in the same run
#   BENCH_BASELINE_BIN=PATH ...            ... or on that binary
#   BENCH_BASELINE_ENV="VAR=V ..." ...      the baseline's servers run with these
#                                          settings (alone: this build with them,
#                                          e.g. MEMGATE_SEARCH_CONCURRENCY=0)
#
# For each binary, BENCH_MCP_ROUNDS times (default 2), alternating the
# binaries so that the machine's drift hits both alike:
#   - for each count in BENCH_MCP_SESSIONS ("32 256"), that many concurrent
#     sessions call search_code with the lexical queries of bench/queries.tsv
#     for BENCH_MCP_SECONDS (30) s after BENCH_MCP_WARMUP (5) s of the same
#     load not counted, in search_code's default mode, then in lexical mode:
#     calls per second, p50/p99 latency, errors, the server's CPU ms per
#     call (its /proc/PID/stat over the counted calls: on a loaded machine
#     the figure that holds, where calls per second follow the load), and
#     the server's peak RSS (VmHWM) at the end of the default-mode run: the
#     served index with its vectors loaded (issue 39: <= 500 MB);
#   - one session alone for 10 s: the latency of a call with no contention.
# Prints a Markdown section with the medians and the ratio to the baseline.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${MEMGATE_BIN:-$here/build/memgate}
LBIN=$here/build/memgate-mcpload
SESSIONS=${BENCH_MCP_SESSIONS:-32 256}
WARMUP=${BENCH_MCP_WARMUP:-5}
SECONDS_=${BENCH_MCP_SECONDS:-30}
ROUNDS=${BENCH_MCP_ROUNDS:-2}
CACHE=${MEMGATE_BENCH_CACHE:-$HOME/.cache/memgate-bench}
K=$CACHE/linux-source-6.1
for b in "$BIN" "$LBIN"; do [ -x "$b" ] || { echo "mcp_load: $b is missing; run 'make bench'" >&2; exit 1; }; done

work=$(mktemp -d "${TMPDIR:-/tmp}/memgate-mcpload.XXXXXX")
srv_pid=""
cleanup() {
  [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# ---- the baseline ------------------------------------------------------------------
base="${BENCH_BASELINE_BIN:-}"
[ -z "$base" ] && [ -n "${BENCH_BASELINE:-}" ] && base=$("$here/bench/baseline.sh" "$BENCH_BASELINE")
base_env=${BENCH_BASELINE_ENV:-}
[ -z "$base" ] && [ -n "$base_env" ] && base=$BIN

# ---- the index -------------------------------------------------------------------------
home=${BENCH_HOME:-}
if [ -z "$home" ]; then
  [ -f "$K/MAINTAINERS" ] || { echo "mcp_load: no Linux tree in $K; run bench/run.sh once (it fetches it)" >&2; exit 1; }
  home=$work/home
  echo "mcp_load: indexing $K" >&2
  MEMGATE_HOME=$home "$BIN" index "$K" --name linux > /dev/null
fi

# ---- runs --------------------------------------------------------------------------------
serve() { # serve with binary $1 (and settings $2: "VAR=V ..."); sets srv_pid and srv_url
  : > "$work/serve.out"
  # shellcheck disable=SC2086
  env ${2:-} MEMGATE_HOME="$home" "$1" serve --listen 127.0.0.1:0 --json > "$work/serve.out" 2> "$work/serve.err" &
  srv_pid=$!
  for _ in $(seq 100); do grep -q port "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
  grep -q port "$work/serve.out" || { cat "$work/serve.err" >&2; echo "mcp_load: $1 serve did not start" >&2; exit 1; }
  srv_url="http://127.0.0.1:$(grep -o '"port":[0-9]*' "$work/serve.out" | cut -d: -f2)/mcp"
  # the vectors in before the load: while they load, hybrid answers by words alone (and the load is the server's)
  local q="${srv_url%/mcp}/v1/search?q=connection+timeout+handling&mode=hybrid&repo=linux&limit=1" i
  for i in $(seq 600); do curl -s "$q" | grep -q '"state":"loading"' || break; sleep 1; done
}
stop() { kill "$srv_pid"; wait "$srv_pid" 2>/dev/null || true; srv_pid=""; }
kv() { awk -v k="$1" '$1 == k {print $2}' "$2"; }

run_one() { # name binary round [settings]
  local s
  for s in $SESSIONS; do
    serve "$2" "${4:-}"
    echo "mcp_load: $1, round $3: $s sessions for $SECONDS_ s" >&2
    "$LBIN" "$srv_url" "$here/bench/queries.tsv" --sessions "$s" --seconds "$SECONDS_" --warmup "$WARMUP" \
      --repo linux --pid "$srv_pid" > "$work/$1.load$s.$3"
    stop
    serve "$2" "${4:-}" # each run on a fresh server: one still working off the last run's abandoned calls would measure that
    echo "mcp_load: $1, round $3: $s sessions for $SECONDS_ s, mode lexical" >&2
    "$LBIN" "$srv_url" "$here/bench/queries.tsv" --sessions "$s" --seconds "$SECONDS_" --warmup "$WARMUP" \
      --repo linux --mode lexical --pid "$srv_pid" > "$work/$1.lexical$s.$3"
    stop
  done
  serve "$2" "${4:-}"
  "$LBIN" "$srv_url" "$here/bench/queries.tsv" --sessions 1 --seconds 10 --repo linux --pid "$srv_pid" \
    > "$work/$1.alone.$3"
  stop
}
for r in $(seq "$ROUNDS"); do
  [ -n "$base" ] && run_one baseline "$base" "$r" "$base_env"
  run_one current "$BIN" "$r"
done

median() { sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
med() { # name kind key
  for f in "$work/$1.$2".*; do kv "$3" "$f"; done | median
}
sum() { for f in "$work/$1.$2".*; do kv "$3" "$f"; done | awk '{s += $1} END {print s + 0}'; }
row() { # label kind key [unit]
  local c b
  c=$(med current "$2" "$3")
  if [ -n "$base" ]; then
    b=$(med baseline "$2" "$3")
    printf '| %s | %s | %s | %s |\n' "$1" "$b" "$c" "$(awk -v b="$b" -v c="$c" 'BEGIN {if (b > 0) printf "%.2f×", c / b; else print "—"}')"
  else
    printf '| %s | %s |\n' "$1" "$c"
  fi
}

cat <<EOF

### MCP over Streamable HTTP

$(echo $SESSIONS | sed 's/ / and /g') concurrent MCP sessions (one client thread and keep-alive connection
each, \`bench/mcp_load.c\`) call \`search_code\` with the lexical queries of
\`bench/queries.tsv\` in turn for $SECONDS_ s (after $WARMUP s not counted) against \`memgate serve\` on the
Linux index, with search_code's default mode (hybrid for the 3-word queries,
as an agent would call it), then the same with \`mode: lexical\`; then one
session alone for 10 s, on a fresh server. Medians of $ROUNDS rounds$([ -n "$base" ] && echo ", the baseline ($base${base_env:+ with $base_env}) and this build alternating")
(\`bench/mcp_load.sh\`).

EOF
if [ -n "$base" ]; then
  echo "| measure | baseline | this build | ratio |"
  echo "| --- | --- | --- | --- |"
else
  echo "| measure | value |"
  echo "| --- | --- |"
fi
for s in $SESSIONS; do
  row "calls per second, $s sessions" "load$s" rps
  row "latency p50 (ms), $s sessions" "load$s" p50_ms
  row "latency p99 (ms), $s sessions" "load$s" p99_ms
  row "server CPU per call (ms), $s sessions" "load$s" cpu_ms_per_call
  row "server peak RSS (kB), $s sessions (vectors loaded)" "load$s" server_peak_rss_kb
  row "calls per second, $s sessions, mode lexical" "lexical$s" rps
  row "latency p50 (ms), $s sessions, mode lexical" "lexical$s" p50_ms
  row "latency p99 (ms), $s sessions, mode lexical" "lexical$s" p99_ms
  row "server CPU per call (ms), $s sessions, mode lexical" "lexical$s" cpu_ms_per_call
done
row "latency p50 (ms), one session alone" alone p50_ms
row "calls per second, one session alone" alone rps
row "server CPU per call (ms), one session alone" alone cpu_ms_per_call
echo
errs() {
  local n s
  n=$(sum "$1" alone errors)
  for s in $SESSIONS; do n=$(( n + $(sum "$1" "load$s" errors) + $(sum "$1" "lexical$s" errors) )); done
  echo "$n"
}
echo "Errors: $(errs current) (this build)$([ -n "$base" ] && echo ", $(errs baseline) (baseline)")."
