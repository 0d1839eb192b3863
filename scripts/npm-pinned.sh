#!/bin/sh
# npm-pinned.sh DIR FILE WHAT [--scripts] — make DIR/node_modules hold exactly
# what DIR/package-lock.json pins: `npm ci` when the lockfile changed since the
# last install (its hash is kept in node_modules/.memgate-lock.sha) or
# DIR/node_modules/FILE is missing; nothing otherwise. WHAT names the packages
# in the progress line. Without --scripts the packages' install scripts do not
# run. Parallel callers share one run (a lock beside the lockfile).
set -eu
if [ $# -lt 3 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
  sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
  [ $# -ge 1 ] && [ "$1" != "${1#-}" ] && exit 0 || exit 2
fi
dir=$1 file=$2 what=$3
ignore=--ignore-scripts
[ "${4:-}" = --scripts ] && ignore=
stamp=$dir/node_modules/.memgate-lock.sha
current() {
  [ "$(cat "$stamp" 2>/dev/null || true)" = "$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)" ] &&
    [ -e "$dir/node_modules/$file" ]
}
current && exit 0
exec 9>"$dir/.npm-ci.lock"
flock 9
current && exit 0
echo "  installing $what (npm ci in $dir)" >&2
want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
# shellcheck disable=SC2086 # $ignore is one flag or none
(cd "$dir" && npm ci $ignore --no-audit --no-fund --loglevel=error </dev/null >/dev/null) || {
  echo "npm-pinned: error[deps_missing]: npm ci failed in $dir (is npm installed and the registry reachable? run 'make deps')" >&2
  exit 1
}
echo "$want" > "$stamp"
