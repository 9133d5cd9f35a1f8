#!/usr/bin/env bash
# Replication to PostgreSQL, end to end, against a throwaway server:
#
#   1. installs PostgreSQL from Debian's packages if it is missing, and starts a server of its
#      own (initdb and pg_ctl in a temporary directory, on loopback, a random port, trust auth);
#   2. runs the Integrations package's PostgreSQL tests (RealmPostgresTests) against it;
#   3. runs realm-replication-check: 8 writer actors commit inserts, updates, deletes and list
#      edits while the sink replicates; the process (writers and sink) is killed with SIGKILL at
#      a random moment mid-stream, restarted for more writes, killed again; then the sink alone
#      catches up, and every object is compared with its row (and every row with an object);
#   4. stops the server and removes it.
#
#   bash Scripts/test-replication.sh [--seconds N]     # N seconds of writes per phase (default 6)
#
# Prints, last, `replication: N commits, M objects replicated, 0 lost` and `resume: ok`; exits 1
# at the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=6
[[ "${1:-}" == "--seconds" ]] && seconds="$2"

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
as_server "$bindir/pg_ctl" -D "$work/data" -o "-p $port -k $work -c listen_addresses=127.0.0.1 -c fsync=on" \
    -l "$work/server.log" -w start >/dev/null
stop() { as_server "$bindir/pg_ctl" -D "$work/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$work"; }
trap stop EXIT
export REALM_POSTGRES_HOST=127.0.0.1 REALM_POSTGRES_PORT=$port REALM_POSTGRES_USER=realm REALM_POSTGRES_DATABASE=postgres

swift build --package-path Integrations --build-tests >&2
swift test --package-path Integrations --skip-build --filter RealmPostgresTests >&2
check="$(swift build --package-path Integrations --show-bin-path)/realm-replication-check"
data="$work/realm" && mkdir -p "$data" && chmod 777 "$data"

# Writes with the sink running, killed mid-stream, twice (the second run resumes the first's slot).
for phase in 1 2; do
    "$check" write "$data" 1000 >"$work/write-$phase.log" 2>&1 &
    pid=$!
    sleep "$(python3 -c "import random; print(round(random.uniform($seconds / 2, $seconds), 2))")"  # a random moment to kill at
    kill -9 "$pid"
    wait "$pid" 2>/dev/null || true
    applied=$(psql -h 127.0.0.1 -p "$port" -U realm -d postgres -tAc "SELECT version FROM realm_replication_progress WHERE slot = 'check'" 2>/dev/null || echo none)
    echo "phase $phase: killed with SIGKILL after $(cat "$data"/acks-* 2>/dev/null | wc -l) acknowledged commits in all; PostgreSQL had applied through version ${applied:-none}" >&2
done
"$check" catch-up "$data" >&2
"$check" compare "$data" | tee "$work/compare.log"
grep -q " 0 lost$" "$work/compare.log"
echo "resume: ok"
