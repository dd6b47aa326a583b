#!/usr/bin/env bash
# A throwaway PostgreSQL server for the store's tests (docs/development.md).
#
#   eval "$(scripts/pg-test-server.sh start)"   # prints export lines: OXEVAL_TEST_POSTGRES_URL, OXEVAL_PG_DIR
#   scripts/pg-test-server.sh stop "$OXEVAL_PG_DIR"
#
# Debian's package (/usr/lib/postgresql/*/bin, or $PG_BIN): initdb in a temporary directory,
# listening on 127.0.0.1 on a free port, its unix socket in that directory, a password
# (scram) role `oxeval` and a database `oxeval_test`. initdb refuses root: as root the server
# runs as the system user `oxeval-pg` (created if missing). `stop` stops it and removes the
# directory. Every wait is bounded (pg_ctl -t 30).
set -euo pipefail

pg_bin() {
  if [ -n "${PG_BIN:-}" ]; then echo "$PG_BIN"; return; fi
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$d" ] || { echo "pg-test-server: no PostgreSQL found (apt-get install postgresql, or set PG_BIN)" >&2; exit 1; }
  echo "$d"
}

# run "$@" as the server's user (root: oxeval-pg; anyone else: themselves)
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u oxeval-pg -- "$@"; else "$@"; fi
}

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

start() {
  local bin dir port pw
  bin=$(pg_bin)
  if [ "$(id -u)" -eq 0 ] && ! id oxeval-pg >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin oxeval-pg
  fi
  dir=$(mktemp -d "${TMPDIR:-/tmp}/oxeval-pg.XXXXXX")
  chmod 755 "$dir"
  [ "$(id -u)" -eq 0 ] && chown oxeval-pg "$dir"
  pw=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
  port=$(free_port)
  as_pg "$bin/initdb" -D "$dir/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
    -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; rm -rf "$dir"; exit 1; }
  as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null \
    || { cat "$dir/server.log" >&2; stop "$dir"; exit 1; }
  as_pg "$bin/psql" -h "$dir" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -q \
    -c "CREATE ROLE oxeval LOGIN PASSWORD '$pw'" -c "CREATE DATABASE oxeval_test OWNER oxeval" >/dev/null \
    || { stop "$dir"; exit 1; }
  echo "export OXEVAL_TEST_POSTGRES_URL=postgres://oxeval:$pw@127.0.0.1:$port/oxeval_test"
  echo "export OXEVAL_PG_DIR=$dir"
}

stop() {
  local dir=${1:-${OXEVAL_PG_DIR:-}}
  [ -n "$dir" ] && [ -d "$dir" ] || return 0
  case "$dir" in */oxeval-pg.*) ;; *) echo "pg-test-server: refusing to remove $dir" >&2; return 1 ;; esac
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_pg "$(pg_bin)/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  *) echo "usage: $0 start | stop DIR" >&2; exit 2 ;;
esac
