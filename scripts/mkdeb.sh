#!/usr/bin/env bash
# mkdeb.sh — build a Debian package of a built memgate (make deb runs it).
#
# Stages `make install PREFIX=/usr` in a temporary directory (zsh completion
# in /usr/share/zsh/vendor-completions, where Debian's zsh looks), gzips the
# man pages, strips the binary, computes Depends with dpkg-shlibdeps from the
# shared libraries the binary links or loads on first use (libgit2-1.5,
# libvectorscan5, libmicrohttpd12, ...), and writes OUTDIR/memgate_VERSION_ARCH.deb with
# dpkg-deb (files owned by root, no fakeroot needed). VERSION is the one
# `memgate --version` prints. The Maintainer field is "$DEBFULLNAME
# <$DEBEMAIL>" (Debian's own variables), else the checkout's git user.name and
# user.email; an address on a reserved domain (.example, .invalid, .test,
# .localhost) is refused, so no package leaves with a placeholder. The
# copyright file is scripts/copyright.sh's (memgate and every library compiled in).
#
# usage: [DEBFULLNAME=NAME DEBEMAIL=ADDR] scripts/mkdeb.sh MEMGATE_BIN OUTDIR
set -euo pipefail

if [ $# -ne 2 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
  [ $# -eq 1 ] && exit 0 || exit 2
fi
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
for t in dpkg-deb dpkg-shlibdeps dpkg-architecture; do
  command -v $t >/dev/null 2>&1 || {
    echo "mkdeb: error[deps_missing]: $t is not installed; apt-get install dpkg-dev" >&2; exit 1; }
done
[ -x "$bin" ] || { echo "mkdeb: error[path_not_found]: no memgate binary at '$bin'; build it first (make)" >&2; exit 1; }

mname=${DEBFULLNAME:-$(git -C "$here" config user.name 2>/dev/null || true)}
mmail=${DEBEMAIL:-$(git -C "$here" config user.email 2>/dev/null || true)}
case "$mmail" in
  *@*.example|*@*.invalid|*@*.test|*@*.localhost|*@example.*|'')
    echo "mkdeb: error[usage]: the package's Maintainer would be '${mname} <${mmail}>', a placeholder; set DEBFULLNAME and DEBEMAIL to the person or list that answers for it" >&2
    exit 1 ;;
  *@*) ;;
  *) echo "mkdeb: error[usage]: DEBEMAIL '$mmail' is not an e-mail address" >&2; exit 1 ;;
esac
[ -n "$mname" ] || { echo "mkdeb: error[usage]: set DEBFULLNAME (the Maintainer's name)" >&2; exit 1; }

version=$(env -u MEMGATE_HOME "$bin" --version | sed -n '1s/^memgate \([^ ]*\).*/\1/p')
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
[ -n "$version" ] || { echo "mkdeb: error[internal]: '$bin --version' names no version" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
make -C "$here" --no-print-directory -s install BIN="$bin" DESTDIR="$root" PREFIX=/usr \
  ZSHCOMPDIR=/usr/share/zsh/vendor-completions >/dev/null
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/memgate"
gzip -9n "$root"/usr/share/man/man1/*.1
install -d "$root/usr/share/doc/memgate"
printf 'memgate %s, built from commit %s.\nSources and documentation: README.md and docs/ of the memgate repository.\n' \
  "$version" "$(env -u MEMGATE_HOME "$bin" --version | sed -n '1s/.*(commit \(.*\))/\1/p')" \
  > "$root/usr/share/doc/memgate/README"
"$here/scripts/copyright.sh" > "$root/usr/share/doc/memgate/copyright"

# dpkg-shlibdeps reads debian/control of a source package: a minimal one
mkdir -p "$tmp/src/debian"
printf 'Source: memgate\n\nPackage: memgate\nArchitecture: any\n' > "$tmp/src/debian/control"
# libcurl, libgit2, libmicrohttpd and libpq are loaded when first called
# (src/util/dynlib.c), so the binary does not name them: a stub linked
# against them makes dpkg-shlibdeps count them with the rest
printf 'int main(void) { return 0; }\n' > "$tmp/dlstub.c"
${CC:-cc} -o "$tmp/src/dlstub" "$tmp/dlstub.c" -Wl,--no-as-needed $(pkg-config --libs libcurl libgit2 libmicrohttpd libpq) ||
  { echo "mkdeb: error[internal]: cannot link the stub naming the libraries loaded on first use" >&2; exit 1; }
deps=$(cd "$tmp/src" && dpkg-shlibdeps -O -e"$root/usr/bin/memgate" -e"$tmp/src/dlstub" 2>"$tmp/shlibdeps.err" \
  | sed -n 's/^shlibs:Depends=//p') || { cat "$tmp/shlibdeps.err" >&2; exit 1; }
[ -n "$deps" ] || { cat "$tmp/shlibdeps.err" >&2; echo "mkdeb: error[internal]: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

install -d "$root/DEBIAN"
cat > "$root/DEBIAN/control" <<CONTROL
Package: memgate
Version: $version
Architecture: $arch
Maintainer: $mname <$mmail>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $deps
Section: devel
Priority: optional
Description: code-context and memory server for AI coding agents
 memgate indexes repositories for lexical, regex, symbol and semantic
 search, keeps each repository in its own database, never opens a secret
 file, and serves agents over the Model Context Protocol (stdio or
 Streamable HTTP) and a plain HTTP API. Agents also keep a memory: notes,
 projects, episodes and entities.
 .
 This package holds the memgate binary, its man pages, bash, zsh and fish
 completions and a systemd user unit for "memgate serve".
CONTROL

mkdir -p "$out"
deb="$out/memgate_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb.tmp" >/dev/null
mv "$deb.tmp" "$deb"
echo "$deb"
