#!/bin/sh
# grammar-obj.sh OUT SRC PKG CC FLAGS... — compile one tree-sitter source (a
# grammar's parser.c or scanner.c, or the runtime's lib.c) into OUT, through a
# cache shared by every checkout and build (build/, build/san/, fuzz builds).
# grammar-obj.sh --include OUTDIR — the runtime's public headers
# (tree_sitter/api.h) into OUTDIR, through the same cache.
#
# The object is kept in $MEMGATE_GRAMMAR_CACHE (default
# ${XDG_CACHE_HOME:-~/.cache}/memgate/grammars) under a key made of PKG's
# entry in third_party/grammars/package-lock.json (its version and integrity:
# the exact tarball), SRC's path inside the package, the compiler's identity
# and FLAGS. A grammar compiled once (minutes at -O2 for the large generated
# parsers) is copied from then on; a new grammar version, another compiler or
# other flags compile anew. The key needs only the lockfile, so a build whose
# objects are all cached never unpacks the sources; on a miss,
# scripts/grammar-sources.sh brings them (npm ci) first. Written atomically,
# so parallel builds may share the cache.
set -eu
usage="usage: grammar-obj.sh OUT SRC PKG CC [FLAGS...] | grammar-obj.sh --include OUTDIR"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
lock=$here/third_party/grammars/package-lock.json
cache=${MEMGATE_GRAMMAR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memgate/grammars}
# a package's version and integrity lines (awk: a python start costs seconds on a loaded machine)
lock_entry() {
  e=$(awk -v k="\"node_modules/$1\": {" 'index($0, k) == 5 { on = 1; next }
    on && /^    }/ { exit }
    on && /"(version|integrity)":/ { print }' "$lock")
  [ -n "$e" ] || { echo "grammar-obj: package '$1' is not in $lock" >&2; exit 1; }
  printf '%s\n' "$e"
}

if [ "$1" = --include ]; then
  outdir=$2 pkg=tree-sitter-runtime
  entry=$(lock_entry "$pkg")
  key=$(printf '%s\n' "$pkg" "$entry" include | sha256sum | cut -c1-24)
  tarball=$cache/$pkg-include-$key.tar
  if [ ! -s "$tarball" ]; then
    "$here/scripts/grammar-sources.sh"
    mkdir -p "$cache"
    tmp=$(mktemp "$cache/.tmp.XXXXXX")
    trap 'rm -f "$tmp"' EXIT
    tar -C "$here/third_party/grammars/node_modules/$pkg/vendor/tree-sitter/lib/include" -cf "$tmp" .
    mv -f "$tmp" "$tarball"
    trap - EXIT
  fi
  rm -rf "$outdir.tmp" && mkdir -p "$outdir.tmp" && tar -C "$outdir.tmp" -mxf "$tarball"
  rm -rf "$outdir" && mv "$outdir.tmp" "$outdir"
  exit 0
fi

[ $# -ge 4 ] || { echo "$usage" >&2; exit 2; }
out=$1 src=$2 pkg=$3 cc=$4
shift 4
entry=$(lock_entry "$pkg")
rel=${src#*node_modules/$pkg/}
ccid=${GRAMMAR_CCID:-$($cc --version 2>/dev/null | head -1)}
key=$(printf '%s\n' "$pkg" "$entry" "$rel" "$ccid" "$*" | sha256sum | cut -c1-24)
name=$(echo "$pkg-$rel" | tr '/@' '__')
obj=$cache/$name-$key.o
mkdir -p "$(dirname "$out")"
if [ ! -s "$obj" ]; then
  "$here/scripts/grammar-sources.sh"
  mkdir -p "$cache"
  tmp=$(mktemp "$cache/.tmp.XXXXXX")
  trap 'rm -f "$tmp"' EXIT
  echo "  CC (grammar) $src" >&2
  $cc "$@" -I"$(dirname "$src")" -c "$src" -o "$tmp"
  mv -f "$tmp" "$obj"
  trap - EXIT
fi
cp -f "$obj" "$out.tmp" && mv -f "$out.tmp" "$out"
