#!/bin/sh
# grammar-sources.sh — make third_party/grammars/node_modules hold exactly the
# tree-sitter packages third_party/grammars/package-lock.json pins (npm ci,
# about 1.2 GB unpacked). Run by scripts/setup.sh (make test, make deps) and,
# only on a miss of the grammar cache, by scripts/grammar-obj.sh: a clean
# clone whose grammar objects and runtime headers are all cached (make run
# after any earlier build on this machine) never unpacks the sources.
# Safe to run from parallel make jobs: one runs npm ci, the others wait.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
g=$here/third_party/grammars
stamp=$g/node_modules/.memgate-lock.sha
current() {
  [ "$(cat "$stamp" 2>/dev/null || true)" = "$(sha256sum "$g/package-lock.json" | cut -d' ' -f1)" ] &&
    [ -f "$g/node_modules/tree-sitter-c/src/parser.c" ]
}
current && exit 0
exec 9>"$g/.npm-ci.lock"
flock 9
current && exit 0
echo "  grammar sources: npm ci in third_party/grammars" >&2
want=$(sha256sum "$g/package-lock.json" | cut -d' ' -f1)
(cd "$g" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error </dev/null >/dev/null) || {
  echo "grammar-sources: error[deps_missing]: npm ci failed in $g (is npm installed and the registry reachable? run 'make deps')" >&2
  exit 1
}
echo "$want" > "$stamp"
