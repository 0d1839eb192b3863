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
# the licenses are in the grammar sources, which a build from the grammar cache never unpacked
"$here/scripts/grammar-sources.sh" >&2

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

# the packages compiled in: the tree-sitter runtime and the second column of
# the Makefile's GRAMMAR_TABLE (a package in the lockfile but not in the
# table, such as the SQL grammar, is not in the binary and not listed)
packages=$({
  echo tree-sitter-runtime
  awk '/^GRAMMAR_TABLE *:=/ { on = 1; next } on { if ($0 !~ /\\$/) on = 0; if (NF >= 3) print $2 }' "$here/Makefile"
} | awk '!seen[$0]++')
[ "$(printf '%s\n' "$packages" | wc -l)" -gt 1 ] || { echo "copyright: error[parse_error]: no GRAMMAR_TABLE in $here/Makefile" >&2; exit 1; }

# MIT's text, for a package whose package.json says MIT but that ships no license file
mit() {
  printf 'Copyright (c) %s\n\n' "$1"
  cat <<'MIT'
Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
MIT
}

for name in $packages; do
  d="$g/$name"
  [ -f "$d/package.json" ] || { echo "copyright: error[path_not_found]: $name is not installed in $g; run make deps" >&2; exit 1; }
  lic=
  for f in LICENSE LICENSE.md LICENSE.txt LICENCE COPYING license; do
    if [ -f "$d/$f" ]; then lic="$d/$f"; break; fi
  done
  version=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$d/package.json" | head -1)
  spdx=$(sed -n 's/^ *"license": *"\([^"]*\)".*/\1/p' "$d/package.json" | head -1)
  if [ -z "$lic" ] && [ "$spdx" != MIT ]; then
    echo "copyright: error[path_not_found]: $name ships no license file and its package.json says '${spdx:-nothing}', not MIT; add its license text to scripts/copyright.sh" >&2
    exit 1
  fi
  holders=
  [ -z "$lic" ] || holders=$(grep -iE '^ *copyright (\(c\)|©|[0-9])' "$lic" | sed 's/^ *[Cc]opyright *//; s/^(c) *//; s/^© *//' || true)
  [ -n "$holders" ] || holders="the $name authors"
  printf '\nFiles: third_party/grammars/node_modules/%s/*\n' "$name"
  if [ -n "$lic" ]; then
    printf 'Comment: npm package %s %s, compiled into the binary\n' "$name" "$version"
  else
    printf 'Comment: npm package %s %s, compiled into the binary; it ships no license\n file: its package.json declares MIT, whose text follows\n' "$name" "$version"
  fi
  printf 'Copyright:'
  printf '%s\n' "$holders" | sed 's/^/ /'
  printf 'License: %s\n' "${spdx:-see below}"
  if [ -n "$lic" ]; then sed 's/^$/./; s/^/ /' "$lic"; else mit "$holders" | sed 's/^$/./; s/^/ /'; fi
done
