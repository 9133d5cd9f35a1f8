#!/usr/bin/env bash
# Replication to PostgreSQL, end to end, against a throwaway server:
#
#   1. installs PostgreSQL from Debian's packages if it is missing, and starts a server of its
#      own (Scripts/throwaway-postgres.sh: initdb and pg_ctl in a temporary directory, loopback);
#   2. runs the Integrations package's PostgreSQL tests (RealmPostgresTests) against it;
#   3. runs realm-replication-check: 8 writer actors commit inserts, updates, deletes, list
#      edits, edits of embedded objects alone and links to a class without a primary key while
#      the sink replicates; the process (writers and sink) is killed with SIGKILL at
#      a random moment mid-stream and restarted for more writes, K times (2); run again while
#      PostgreSQL crashes (immediate stop) and restarts, which the sink rides out by retrying;
#      then the sink alone catches up, and every object is compared with its row (and every
#      row with an object), and the dead-letter table checked empty (those were no data errors);
#   4. a migration while the sink is stopped and a backlog pending (a rename, a removed and an
#      added property, writes in the new schema), then catch-up, every Item compared by its
#      new columns;
#   5. stops the server and removes it.
#
#   bash Scripts/test-replication.sh [--seconds N] [--kills K]
#       N: seconds of writes per phase (default 6); K: SIGKILLed phases (default 2; the long
#       run a maintainer repeats: --seconds 4 --kills 100)
#
# Prints, last, `replication: N commits, M objects replicated, 0 lost` and `resume: ok`; exits 1
# at the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=6
kills=2
while [[ $# -gt 0 ]]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --kills) kills="$2"; shift 2 ;;
        *) echo "usage: bash Scripts/test-replication.sh [--seconds N] [--kills K]" >&2; exit 2 ;;
    esac
done

source Scripts/throwaway-postgres.sh

swift build --package-path Integrations --build-tests >&2
swift test --package-path Integrations --skip-build --filter RealmPostgresTests >&2
check="$(swift build --package-path Integrations --show-bin-path)/realm-replication-check"
data="$work/realm" && mkdir -p "$data" && chmod 777 "$data"

# Writes with the sink running, killed mid-stream, K times (each run resumes the last one's slot).
for phase in $(seq 1 "$kills"); do
    "$check" write "$data" 1000 >"$work/write-$phase.log" 2>&1 &
    pid=$!
    sleep "$(python3 -c "import random; print(round(random.uniform($seconds / 2, $seconds), 2))")"  # a random moment to kill at
    kill -9 "$pid"
    wait "$pid" 2>/dev/null || true
    applied=$(psql_query "SELECT version FROM realm_replication_progress WHERE slot = 'check'" 2>/dev/null || echo none)
    echo "phase $phase: killed with SIGKILL after $(cat "$data"/acks-* 2>/dev/null | wc -l) acknowledged commits in all; PostgreSQL had applied through version ${applied:-none}" >&2
done
# PostgreSQL crashes (immediate stop) mid-stream and comes back: the sink retries on its own,
# and the process must end normally when its writers are done.
"$check" write "$data" "$seconds" >"$work/write-crash.log" 2>&1 &
pid=$!
sleep "$(python3 -c "import random; print(round(random.uniform(1, $seconds / 2), 2))")"  # a random moment to crash at
crash_postgres
sleep 1  # down for a while, as a restart would be
start_postgres
wait "$pid" || { cat "$work/write-crash.log" >&2; echo "the writers and the sink did not survive PostgreSQL's crash" >&2; exit 1; }
echo "last phase: PostgreSQL crashed and restarted mid-stream; the sink retried $(grep -c "retrying" "$work/write-crash.log" || true) times and went on" >&2
"$check" catch-up "$data" >&2
"$check" compare "$data" | tee "$work/compare.log"
grep -q " 0 lost$" "$work/compare.log"
# SIGKILLs and PostgreSQL's crash are failures waiting mends: retried, never dead letters.
dead=$(psql_query "SELECT count(*) FROM realm_replication_dead_letters")
[[ "$dead" == 0 ]] || { echo "$dead dead letters after the kills and PostgreSQL's crash: a transient error was taken for the data's" >&2; exit 1; }
echo "resume: ok"
# A migration while a backlog is pending (the sink stopped): writes, then the app migrated —
# Item's `count` renamed, `flag` removed, `note` added and set on some objects — and written in
# the new schema; the sink then applies commits of both schemas, each read with its own.
"$check" write "$data" 2 --without-sink >&2
"$check" migrate "$data" >&2
"$check" catch-up "$data" >&2
"$check" compare "$data" | tee "$work/compare-migrated.log"
grep -q " 0 lost$" "$work/compare-migrated.log"
echo "migration in the backlog: ok"
