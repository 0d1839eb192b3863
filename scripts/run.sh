#!/usr/bin/env bash
# run.sh — what `make run` does once memgate is built: index this checkout
# into the data directory and show what it holds, then a few searches.
# (The MCP and HTTP servers come with later work; this is the engine.)
set -euo pipefail
bin=${1:-build/memgate}
root=$(cd "$(dirname "$0")/.." && pwd)
"$bin" index "$root"
echo
"$bin" status
echo
for q in "parse http header" "mg_index_run"; do
  echo "\$ memgate search \"$q\" --limit 3"
  (cd "$root" && "$bin" search "$q" --limit 3) || true
  echo
done
echo "\$ memgate search 'mg_\\w+_free\\(' --mode regex --limit 3"
(cd "$root" && "$bin" search 'mg_\w+_free\(' --mode regex --limit 3) || true
cat <<MSG

memgate is built at $bin. Try:
  $bin search QUERY [--mode lexical|regex|symbol] [--glob G] [--lang L] [--json]
  $bin index PATH       (any other repository; re-run it to update)
  $bin repos            (what is indexed)
  $bin --help
MSG
