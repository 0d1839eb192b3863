#!/usr/bin/env bash
# pg.sh — a throw-away PostgreSQL 15 for the tests and benchmarks
# (storage = postgres://..., docs/deploy.md): Debian's postgresql-15, a new
# cluster in DIR listening on a Unix socket in DIR only (no TCP port), with
# a plain role `memgate` (not a superuser: row-level security binds it) that
# owns the database `memgate`.
#
# usage: scripts/pg.sh start DIR     make and start the cluster; prints its URL
#        scripts/pg.sh url DIR       print the URL of the cluster in DIR
#        scripts/pg.sh stop DIR      stop it (fast shutdown)
#        scripts/pg.sh kill DIR      stop it as a crash would (immediate: SIGQUIT)
#        scripts/pg.sh restart DIR   start it again after stop or kill
#        scripts/pg.sh psql DIR ARGS...   psql as the superuser postgres
#        scripts/pg.sh rm DIR        stop it and delete DIR
#
# PostgreSQL refuses to run as root: as root, the server runs as the user
# `postgres` that the Debian package creates (DIR is given to it), via
# runuser. The cluster favours speed over a power cut (fsync = off,
# full_page_writes = off): a server crash or kill still loses no committed
# transaction (the WAL is in the OS's cache), which is what the tests check.
set -euo pipefail

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
usage() { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; }
[ $# -ge 1 ] || { usage >&2; exit 2; }
cmd=$1
case "$cmd" in -h | --help) usage; exit 0 ;; esac
[ $# -ge 2 ] || { usage >&2; exit 2; }
dir=$(mkdir -p "$2" && cd "$2" && pwd)
shift 2

if [ ! -x "$PGBIN/pg_ctl" ]; then
  echo "pg.sh: error[dependency_missing]: no PostgreSQL 15 at $PGBIN; install it: apt-get install postgresql-15 (scripts/setup.sh does)" >&2
  exit 1
fi

# run a PostgreSQL program as the cluster's owner
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

url() { echo "postgresql:///memgate?host=$dir&user=memgate"; }

# (database postgres unless the arguments name one with -d)
psql_su() { as_pg env PGDATABASE=postgres "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -U postgres "$@"; }

start() {
  as_pg "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-k $dir -c listen_addresses='' -c fsync=off -c full_page_writes=off -c max_connections=300" start >/dev/null
}

case "$cmd" in
  start)
    if [ -f "$dir/data/PG_VERSION" ]; then
      echo "pg.sh: error[path_exists]: $dir already holds a cluster; use restart, or rm it first" >&2
      exit 1
    fi
    if [ "$(id -u)" = 0 ]; then
      chown postgres "$dir"
      chmod 0700 "$dir"
      # the socket's directory must be reachable by the postgres user
      d=$(dirname "$dir")
      while [ "$d" != / ]; do chmod o+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done
    fi
    as_pg "$PGBIN/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 || {
      cat "$dir/initdb.log" >&2
      exit 1
    }
    start
    psql_su -c "CREATE ROLE memgate LOGIN" -c "CREATE DATABASE memgate OWNER memgate"
    url
    ;;
  url) url ;;
  stop) as_pg "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null ;;
  kill) as_pg "$PGBIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null ;;
  restart) start ;;
  psql) psql_su "$@" ;;
  rm)
    if [ -f "$dir/data/postmaster.pid" ]; then as_pg "$PGBIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true; fi
    rm -rf "$dir"
    ;;
  *) usage >&2; exit 2 ;;
esac
