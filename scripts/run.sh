#!/usr/bin/env bash
# run.sh — what `make run` does once memgate is built: index this checkout
# into the data directory, show what it holds and a few searches, then serve
# MCP (Streamable HTTP) and the HTTP API until Ctrl-C.
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
# where `serve` below listens (config listen, MEMGATE_LISTEN), as a URL a client on this machine can use
listen=$("$bin" status --json | grep -o '"listen":"[^"]*"' | head -1 | cut -d'"' -f4 || true)
case $listen in
  0.0.0.0:*) url=http://127.0.0.1:${listen##*:} ;;
  "[::]:"*) url=http://[::1]:${listen##*:} ;;
  *) url=http://${listen:-127.0.0.1:7077} ;;
esac
cat <<MSG

memgate is built at $bin. Try, from another terminal:
  $bin search QUERY [--mode lexical|regex|symbol] [--glob G] [--lang L] [--json]
  $bin index PATH       (any other repository; re-run it to update)
  claude mcp add --transport http memgate $url/mcp
  curl '$url/v1/search?q=mg_index_run'

Serving until Ctrl-C (MEMGATE_LISTEN or --listen moves it):
MSG
exec "$bin" serve
