#!/bin/sh
# grammar-sources.sh — make third_party/grammars/node_modules hold exactly the
# tree-sitter packages third_party/grammars/package-lock.json pins (npm ci,
# about 1.2 GB unpacked). Run by scripts/setup.sh (make test, make deps) and,
# only on a miss of the grammar cache, by scripts/grammar-obj.sh: a clean
# clone whose grammar objects and runtime headers are all cached (make run
# after any earlier build on this machine) never unpacks the sources.
# Safe to run from parallel make jobs: one runs npm ci, the others wait.
here=$(cd "$(dirname "$0")/.." && pwd)
exec "$here/scripts/npm-pinned.sh" "$here/third_party/grammars" tree-sitter-c/src/parser.c "the grammar sources"
