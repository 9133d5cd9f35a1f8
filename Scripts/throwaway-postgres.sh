#!/usr/bin/env bash
# Sourced by the replication scripts: a throwaway PostgreSQL server for this shell.
#
#   source Scripts/throwaway-postgres.sh
#
# Installs PostgreSQL from Debian's packages if it is missing; starts a server of its own (initdb
# and pg_ctl in a new temporary directory `$work`, on loopback, a random port below the ephemeral
# range, trust auth, fsync on); exports REALM_POSTGRES_HOST, _PORT, _USER and _DATABASE for the
# sink's tests and tools; and stops and removes the server when the shell exits. `psql_query SQL`
# runs one query against it and prints the result unaligned; `crash_postgres` stops it as a crash
# would (immediate mode) and `start_postgres` starts it again.

as_root() { if [[ "$(id -u)" == 0 ]]; then "$@"; else sudo "$@"; fi }
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [[ -z "$bindir" ]]; then
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq postgresql >/dev/null
    bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
fi
# initdb refuses to run as root: the server runs as the postgres user the package created.
as_server() { if [[ "$(id -u)" == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi }

work=$(mktemp -d "${TMPDIR:-/tmp}/realm-replication.XXXXXX")
chmod 777 "$work"
# Below the kernel's ephemeral range, so no client socket can be holding the port.
ephemeral_start=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
port=$((10000 + RANDOM % (ephemeral_start - 10000)))
as_server "$bindir/initdb" -D "$work/data" -A trust -U realm >"$work/initdb.log"
start_postgres() {
    as_server "$bindir/pg_ctl" -D "$work/data" -o "-p $port -k $work -c listen_addresses=127.0.0.1 -c fsync=on" \
        -l "$work/server.log" -w start >/dev/null
}
# As a crash: no checkpoint, no goodbye to clients; the next start recovers from the WAL.
crash_postgres() { as_server "$bindir/pg_ctl" -D "$work/data" -m immediate stop >/dev/null; }
start_postgres
stop_postgres() { as_server "$bindir/pg_ctl" -D "$work/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$work"; }
trap stop_postgres EXIT
export REALM_POSTGRES_HOST=127.0.0.1 REALM_POSTGRES_PORT=$port REALM_POSTGRES_USER=realm REALM_POSTGRES_DATABASE=postgres
psql_query() { psql -h 127.0.0.1 -p "$port" -U realm -d postgres -tAc "$1"; }
