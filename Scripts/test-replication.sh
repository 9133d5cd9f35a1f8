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
#   4. the scenarios of a production run, each ending with the realm and PostgreSQL compared
#      row by row, or with the sink's documented stop checked (exit status and reason) — each
#      prints one line, `scenario X: …`:
#      (e) a migration while the sink is stopped and a backlog pending (a rename, a removed, an
#          added property, a type change, writes in the new schema), then catch-up, every Item
#          compared by its new columns;
#      and, on realms of `Sample`s (a column of each scalar type), each in a database of its own:
#      (a) the sink started on a realm of O objects (100,000): its slot and initial snapshot,
#          then writes while it runs and while it is stopped;
#      (b) PostgreSQL restored from an older dump (pg_dump, pg_restore --clean in one
#          transaction) under a running sink: the stop postgres_behind, then a resynchronization
#          (`resynchronize: true`);
#      (c) the slot dropped (realm-inspect drop-slot) and created again: slot_mismatch, resync;
#      (d) the realm file replaced by an older `cp` copy: realm_behind, and once written,
#          other_history; resync;
#      (f) NUL in strings and extreme values (dates far outside timestamptz's range, Decimal128
#          NaN and ±infinity, Double and Float NaN and ±infinity, Int64.min and .max, strings of
#          a megabyte, empty data), in the snapshot and in batches, compared by the documented
#          mapping;
#      (g) a dead consumer past its retention limit: the slot invalidated while the sink is
#          stopped, `realm-inspect info` showing it, the stop slot_invalidated, the file
#          compacted (`realm-inspect compact`) smaller, then the operator's recovery
#          (`realm-inspect resync-slot`), which the sink honours on its next start;
#   5. stops the server and removes it.
#
#   bash Scripts/test-replication.sh [--seconds N] [--kills K] [--objects O]
#       N: seconds of writes per phase (default 6; the scenarios' running writers take N / 3);
#       K: SIGKILLed phases (default 2; the long run a maintainer repeats: --seconds 4 --kills
#       100); O: the objects of scenario (a) (default 100000)
#
# Prints `replication: N commits, M objects replicated, 0 lost` and `resume: ok`, then one line
# per scenario; exits 1 at the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=6
kills=2
objects=100000
while [[ $# -gt 0 ]]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --kills) kills="$2"; shift 2 ;;
        --objects) objects="$2"; shift 2 ;;
        *) echo "usage: bash Scripts/test-replication.sh [--seconds N] [--kills K] [--objects O]" >&2; exit 2 ;;
    esac
done

source Scripts/throwaway-postgres.sh

swift build --package-path Integrations --build-tests >&2
swift test --package-path Integrations --skip-build --filter RealmPostgresTests >&2
check="$(swift build --package-path Integrations --show-bin-path)/realm-replication-check"
swift build --product realm-inspect >&2
inspect="$(swift build --show-bin-path)/realm-inspect"
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
scenario_start=$SECONDS
# (e) A migration while a backlog is pending (the sink stopped): writes, then the app migrated
# — Item's `count` renamed, `flag` removed, `note` added and set on some objects, `score` a
# string — and written in the new schema; the sink then applies commits of both schemas, each
# read with its own.
"$check" write "$data" 2 --without-sink >&2
"$check" migrate "$data" >&2
"$check" catch-up "$data" >&2
"$check" compare "$data" >"$work/compare-migrated.log" || { cat "$work/compare-migrated.log" >&2; exit 1; }
grep -q " 0 lost$" "$work/compare-migrated.log"
echo "scenario e, a migration (rename, removal, addition, type change) in a pending backlog; $(tail -1 "$work/compare-migrated.log") ($((SECONDS - scenario_start)) s)"

# The scenarios on realms of samples: each its own directory and database.
scenario_seconds=$(python3 -c "print(max(1, round($seconds / 3)))")
start_scenario() {  # NAME: a new database; sets $db and $dir
    db="scenario_$1" dir="$work/scenario-$1" stops="" scenario_start=$SECONDS
    psql_query "CREATE DATABASE $db" >/dev/null
    mkdir -p "$dir" && chmod 777 "$dir"
}
samples() { REALM_POSTGRES_DATABASE="$db" "$check" samples "$dir" "$@"; }
# The sink (`samples … sync OPTIONS`) must stop with REASON: exit status 3 and `stopped: REASON: …`.
expect_stop() {
    local reason=$1 out status=0
    shift
    out=$(samples sync "$@" 2>&1) || status=$?
    if [[ $status != 3 ]] || ! grep -q "^stopped: $reason: " <<<"$out"; then
        echo "$out" >&2
        echo "expected the sink to stop with $reason (exit status 3), not exit status $status" >&2
        exit 1
    fi
    stops+="$reason, "
}
# Every sample against its row; prints `scenario LABEL; compare: … (N s)`, exits 1 unless none differs.
expect_equal() {
    local out
    out=$(samples compare) || { echo "$out" >&2; echo "scenario $1: the realm and PostgreSQL differ" >&2; exit 1; }
    echo "scenario $1; $(tail -1 <<<"$out") ($((SECONDS - scenario_start)) s)"
}
pg() { echo -h 127.0.0.1 -p "$port" -U realm -d "$db"; }
# 2,000 samples replicated (the sink's slot and snapshot), then COMMITS commits replicated.
replicated_samples() { samples populate 2000 >&2; samples sync "${@:2}" >&2; samples edit "$1" >&2; samples sync >&2; }

# (a) The sink started on a realm that already has O objects: it creates its slot and loads the
# initial snapshot, then follows a writer; more writes while it is stopped, then catch-up.
start_scenario a
samples populate "$objects" >&2
samples follow "$scenario_seconds" >&2
samples edit 50 >&2
samples sync >&2
expect_equal "a, the sink's slot and snapshot on a realm of $objects objects, then writes"

# (b) PostgreSQL restored from an older dump under a running sink (which confirms every commit,
# so the slot is past the dump): the sink stops with postgres_behind; resynchronized, equal.
start_scenario b
replicated_samples 0
pg_dump $(pg) -Fc -f "$work/b.dump"
samples edit 30 >&2
samples sync >&2
samples follow $((scenario_seconds + 4)) >"$work/b-follow.log" 2>&1 &
pid=$!
sleep 2
pg_restore $(pg) --clean --single-transaction "$work/b.dump"
status=0 && wait "$pid" || status=$?
if [[ $status != 3 ]] || ! grep -q "^stopped: postgres_behind: " "$work/b-follow.log"; then
    cat "$work/b-follow.log" >&2
    echo "expected the running sink to stop with postgres_behind after the restore (exit status 3), not exit status $status" >&2
    exit 1
fi
expect_stop postgres_behind  # and so does a restarted one
samples sync --resynchronize >&2
expect_equal "b, PostgreSQL restored from an older dump under a running sink: stopped with postgres_behind (running, and again on restart), resynchronized"

# (c) The slot dropped and created again: slot_mismatch; resynchronized, equal.
start_scenario c
replicated_samples 20
"$inspect" drop-slot "$dir/samples.realm" samples >&2
samples edit 10 >&2
expect_stop slot_mismatch
samples create-slot >&2
samples edit 10 >&2
expect_stop slot_mismatch
samples sync --resynchronize >&2
expect_equal "c, the slot dropped, then created again: stopped with ${stops%, }, resynchronized"

# (d) The realm file replaced by an older copy made with cp: realm_behind; written since,
# other_history; resynchronized, equal.
start_scenario d
replicated_samples 0
cp "$dir/samples.realm" "$work/d-backup.realm"
samples edit 20 >&2
samples sync >&2
cp "$work/d-backup.realm" "$dir/samples.realm"
expect_stop realm_behind
samples edit 10 >&2
expect_stop other_history
samples sync --resynchronize >&2
expect_equal "d, the realm replaced by an older cp copy, then written: stopped with ${stops%, }, resynchronized"

# (f) NUL characters and extreme values, loaded by the snapshot and applied in batches.
start_scenario f
samples extremes 0 >&2
samples populate 100 10 >&2
samples sync >&2
samples extremes 200 >&2
samples edit 20 >&2
samples sync >&2
expect_equal "f, NUL characters and extreme values (snapshot and batches)"

# (g) A dead consumer past its retention limit (64 KiB): the slot invalidated while the sink is
# stopped; info shows it; slot_invalidated; the file compacts smaller; the operator's resync.
start_scenario g
replicated_samples 0 --limit-bytes 65536
samples edit 300 >&2
"$inspect" info "$dir/samples.realm" >"$work/g-info.log"
grep -q "INVALIDATED: invalidated at .* for keeping more than its maximum retained bytes" "$work/g-info.log" \
    || { cat "$work/g-info.log" >&2; echo "realm-inspect info does not show the slot invalidated" >&2; exit 1; }
expect_stop slot_invalidated
compacted=$("$inspect" compact "$dir/samples.realm" --quiet)
read -r before after < <(sed -E 's/.*: ([0-9]+) → ([0-9]+) bytes$/\1 \2/' <<<"$compacted")
(( after < before )) || { echo "$compacted: not smaller" >&2; exit 1; }
"$inspect" resync-slot "$dir/samples.realm" samples >&2
samples sync >&2
expect_equal "g, a dead consumer past its retention limit: invalidated (info shows it), stopped with ${stops%, }, compacted $before → $after bytes, realm-inspect resync-slot and a restart"
