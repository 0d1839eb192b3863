#!/usr/bin/env bash
# copyright.sh — the copyright file of a memgate package (the .deb's
# /usr/share/doc/memgate/copyright, the release tarball's COPYRIGHT), in
# Debian's machine-readable format: memgate itself, then each piece of code
# compiled into the binary from third_party/ (the tree-sitter runtime and
# every grammar, read from what is installed there, so a grammar added to
# the lockfile is listed without editing this) with its license text.
#
# usage: scripts/copyright.sh > FILE
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
g="$here/third_party/grammars/node_modules"
[ -d "$g/tree-sitter-runtime" ] || { echo "copyright: error[path_not_found]: no grammar sources in $g; run make deps" >&2; exit 1; }

cat <<'HEAD'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: memgate
Comment: memgate's own code (src/, data/, scripts/) is not released under an
 open-source license: its authors keep all rights, and this package grants
 none beyond installing and running it. The code below is compiled into the
 memgate binary from the npm registry, pinned in
 third_party/grammars/package-lock.json, each under its own license.

Files: *
Copyright: the memgate authors
License: UNLICENSED
 All rights reserved.
HEAD

for d in "$g"/tree-sitter-*/; do
  name=$(basename "$d")
  lic="$d/LICENSE"
  [ -f "$lic" ] || { echo "copyright: error[path_not_found]: $name has no LICENSE file" >&2; exit 1; }
  version=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$d/package.json" | head -1)
  spdx=$(sed -n 's/^ *"license": *"\([^"]*\)".*/\1/p' "$d/package.json" | head -1)
  holders=$(grep -iE '^ *copyright (\(c\)|©|[0-9])' "$lic" | sed 's/^ *[Cc]opyright *//; s/^(c) *//; s/^© *//' || true)
  [ -n "$holders" ] || holders="the $name authors"
  printf '\nFiles: third_party/grammars/node_modules/%s/*\n' "$name"
  printf 'Comment: npm package %s %s, compiled into the binary\n' "$name" "$version"
  printf 'Copyright:'
  printf '%s\n' "$holders" | sed 's/^/ /'
  printf 'License: %s\n' "${spdx:-see below}"
  sed 's/^$/./; s/^/ /' "$lic"
done
