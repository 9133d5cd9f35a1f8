#!/usr/bin/env bash
# The PostgreSQL sink's throughput, against a throwaway server (release build, fsync on):
#
# Catch-up (the commits a sink that was down has to apply):
#   1. starts a server (Scripts/throwaway-postgres.sh);
#   2. realm-replication-check write --without-sink: 8 writer actors commit for N seconds (the
#      replication check's mix: inserts, updates, deletes, list edits, embedded edits, links)
#      with the slot created and no sink running, a backlog of a few tens of thousands commits;
#   3. realm-replication-check catch-up: the sink alone replicates the backlog, in batches of up
#      to its batchSize commits per PostgreSQL transaction; prints commits per second;
#   4. compare: every object against its row, so a fast run is also a correct one.
#
# Keeping up (the sink running beside the writers):
#   5. realm-replication-check write: the same 8 writers for N seconds with the sink running,
#      in a realm and a database of their own; when the writers stop, the process prints the
#      newest version and stops the sink at once;
#   6. the lag: the newest version against the version PostgreSQL's progress row holds, in
#      commits and in seconds of writing — what a sink that keeps up leaves is about a batch;
#      then the sink alone catches up and every object is compared.
#
# Initial snapshot (a new sink on a realm that already has objects):
#   7. realm-replication-check populate: M small objects (id, name, score, flag) in a realm of
#      their own, and the same rows in a CSV file;
#   8. realm-replication-check snapshot, under /usr/bin/time -v: a sink with no progress row
#      creates its slot and loads the realm with COPY in one transaction; prints objects per
#      second, and the process's peak RSS (which includes the realm file's pages it mapped);
#   9. the floor: psql's `\copy` of the CSV file into a table of the same columns, one
#      transaction, timed the same way.
#
#   bash Scripts/measure-replication.sh [--seconds N] [--objects M] [--only catch-up|keep-up|snapshot]
#       N: seconds of writes (default 10); M: objects of the snapshot (default 1000000)
#
# Prints `catch-up: C commits in S s (R commits/s)`, `replication: … 0 lost`, `keep-up: …`, and
# `snapshot: M objects in S s (R objects/s), peak RSS K MiB` with `floor (psql COPY of a CSV
# file): M rows in S s (R rows/s)`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=10
objects=1000000
only=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --objects) objects="$2"; shift 2 ;;
        --only) only="$2"; shift 2 ;;
        *) echo "usage: bash Scripts/measure-replication.sh [--seconds N] [--objects M] [--only catch-up|keep-up|snapshot]" >&2; exit 2 ;;
    esac
done

source Scripts/throwaway-postgres.sh

swift build -c release --package-path Integrations --product realm-replication-check >&2
check="$(swift build -c release --package-path Integrations --show-bin-path)/realm-replication-check"
data="$work/realm" && mkdir -p "$data" && chmod 777 "$data"

if [[ -z "$only" || "$only" == "catch-up" ]]; then
    "$check" write "$data" "$seconds" --without-sink >&2
    du -h "$data/replicated.realm" >&2
    "$check" catch-up "$data"
    "$check" compare "$data"
fi

if [[ -z "$only" || "$only" == "keep-up" ]]; then
    kept="$work/keep-up" && mkdir -p "$kept" && chmod 777 "$kept"
    psql_query 'DROP SCHEMA public CASCADE; CREATE SCHEMA public' >/dev/null 2>&1  # the catch-up's tables and progress row
    written=$("$check" write "$kept" "$seconds" | grep '^write:')
    echo "$written" >&2
    newest=${written##* }
    rate=$(sed -E 's/.*, ([0-9]+) commits\/s.*/\1/' <<<"$written")
    applied=$(psql_query "SELECT version FROM realm_replication_progress WHERE slot = 'check'")
    python3 -c "lag = $newest - $applied; print(f'keep-up: 8 writers at $rate commits/s for $seconds s; PostgreSQL $((newest - applied)) commits behind when they stopped ({lag / max($rate, 1):.2f} s of writing)')"
    "$check" catch-up "$kept" >&2
    "$check" compare "$kept"
fi

if [[ -z "$only" || "$only" == "snapshot" ]]; then
    "$check" populate "$data" "$objects" >&2
    du -h "$data/snapshot.realm" "$data/small.csv" >&2
    /usr/bin/time -v "$check" snapshot "$data" >"$work/snapshot.out" 2>"$work/snapshot.time"
    rss=$(awk -F': ' '/Maximum resident set size/ { print int($2 / 1024) }' "$work/snapshot.time")
    echo "$(cat "$work/snapshot.out"), peak RSS $rss MiB"
    loaded=$(psql_query 'SELECT count(*) FROM "Small"')
    [[ "$loaded" == "$objects" ]] || { echo "the snapshot loaded $loaded rows of $objects" >&2; exit 1; }
    # The floor: the same rows from a file, by PostgreSQL's own client, into the same columns.
    psql_query 'CREATE TABLE small_floor (LIKE "Small" INCLUDING ALL)' >/dev/null
    began=$(date +%s.%N)
    psql -h 127.0.0.1 -p "$port" -U realm -d postgres -qc "\\copy small_floor FROM '$data/small.csv' WITH (FORMAT csv)"
    ended=$(date +%s.%N)
    copied=$(psql_query 'SELECT count(*) FROM small_floor')
    python3 -c "s = $ended - $began; print(f'floor (psql COPY of a CSV file): $copied rows in {s:.2f} s ({int($copied / s)} rows/s)')"
    # The same values: the snapshot's rows are the CSV's.
    differing=$(psql_query 'SELECT count(*) FROM (SELECT * FROM "Small" EXCEPT SELECT * FROM small_floor) AS d')
    [[ "$differing" == "0" ]] || { echo "$differing snapshot rows differ from the CSV's" >&2; exit 1; }
fi
