#!/usr/bin/env bash
# setup.sh — install what memgate needs to build, test and benchmark, and nothing twice.
#
# Idempotent: Debian packages are installed with apt-get only when dpkg says they
# are missing; the tree-sitter grammar sources are installed with `npm ci` from
# third_party/grammars/package-lock.json only when that lockfile changed since the
# last install. Safe with no stdin and with CI=true.
#
# usage: scripts/setup.sh [--bench]     (--bench also installs the benchmark's peers)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
bench=0
for a in "$@"; do
  case "$a" in
    --bench) bench=1 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup: unknown option '$a' (try --help)" >&2; exit 2 ;;
  esac
done

# Build and test dependencies (see DESIGN.md "Dependencies" and README.md).
pkgs=(
  build-essential pkg-config git ca-certificates
  libsqlite3-dev libjansson-dev libpcre2-dev libgit2-dev
  libxxhash-dev libzstd-dev libsodium-dev libmicrohttpd-dev libcurl4-openssl-dev
  libvectorscan-dev
  clang libclang-rt-14-dev
  nodejs npm
  sqlite3   # the node tests plant rows in, and integrity-check, the memory databases
  chromium  # tests/node/dashboard.test.mjs drives it through playwright-core (the dashboard at /)
)
# Benchmark peers and corpus tools.
[ "$bench" = 1 ] && pkgs+=(ripgrep xz-utils time global)

missing=()
for p in "${pkgs[@]}"; do
  # npm may come from elsewhere (nodesource, a tarball): accept any working npm.
  if [ "$p" = npm ] && command -v npm >/dev/null 2>&1; then continue; fi
  if [ "$p" = nodejs ] && command -v node >/dev/null 2>&1; then continue; fi
  st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$st" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo -n"; else
      echo "setup: error[deps_missing]: need root or sudo to install: ${missing[*]}" >&2; exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq </dev/null
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null >/dev/null
fi

# Grammar sources, pinned by the lockfile. Re-run npm ci only when it changed.
g="$here/third_party/grammars"
stamp="$g/node_modules/.memgate-lock.sha"
want=$(sha256sum "$g/package-lock.json" | cut -d' ' -f1)
have=$(cat "$stamp" 2>/dev/null || true)
if [ "$want" != "$have" ] || [ ! -f "$g/node_modules/tree-sitter-c/src/parser.c" ]; then
  echo "setup: installing tree-sitter grammar sources (npm ci)" >&2
  # --ignore-scripts: we only want the C sources; the packages' node bindings are not built.
  (cd "$g" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error </dev/null >/dev/null)
  echo "$want" > "$stamp"
fi

# Benchmark only: gitleaks (a WASM build from npm) to compare the secret
# scanner with (bench/scan.sh), pinned by bench/gitleaks/package-lock.json.
if [ "$bench" = 1 ]; then
  b="$here/bench/gitleaks"
  bstamp="$b/node_modules/.memgate-lock.sha"
  bwant=$(sha256sum "$b/package-lock.json" | cut -d' ' -f1)
  if [ "$bwant" != "$(cat "$bstamp" 2>/dev/null || true)" ] || [ ! -x "$b/node_modules/.bin/gitleaks" ]; then
    echo "setup: installing gitleaks for the benchmark (npm ci in bench/gitleaks)" >&2
    (cd "$b" && npm ci --no-audit --no-fund --loglevel=error </dev/null >/dev/null)
    echo "$bwant" > "$bstamp"
  fi
  # the reference MCP memory server (@modelcontextprotocol/server-memory) and
  # the MCP SDK, for bench/memory_bench.mjs, pinned by bench/memory-peer/package-lock.json
  m="$here/bench/memory-peer"
  mstamp="$m/node_modules/.memgate-lock.sha"
  mwant=$(sha256sum "$m/package-lock.json" | cut -d' ' -f1)
  if [ "$mwant" != "$(cat "$mstamp" 2>/dev/null || true)" ] || [ ! -f "$m/node_modules/@modelcontextprotocol/server-memory/dist/index.js" ]; then
    echo "setup: installing the reference memory server for the benchmark (npm ci in bench/memory-peer)" >&2
    (cd "$m" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error </dev/null >/dev/null)
    echo "$mwant" > "$mstamp"
  fi
  # the TypeScript compiler, the reference of bench/nav_ts_bench.py, pinned by
  # bench/nav-ts/package-lock.json
  t="$here/bench/nav-ts"
  tstamp="$t/node_modules/.memgate-lock.sha"
  twant=$(sha256sum "$t/package-lock.json" | cut -d' ' -f1)
  if [ "$twant" != "$(cat "$tstamp" 2>/dev/null || true)" ] || [ ! -f "$t/node_modules/typescript/package.json" ]; then
    echo "setup: installing the TypeScript compiler for the benchmark (npm ci in bench/nav-ts)" >&2
    (cd "$t" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error </dev/null >/dev/null)
    echo "$twant" > "$tstamp"
  fi
fi
exit 0
