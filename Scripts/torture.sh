#!/usr/bin/env bash
# Crash-safety torture: writers SIGKILLed at random moments, every acknowledged commit and the
# whole content checked against a model after each kill, every page checked every 10 kills.
# See Sources/realm-torture/Driver.swift for what is checked, and DocC's "Crash safety" article.
#
#   Scripts/torture.sh            the release check: 2,000 kills, files past 1 GB (about an hour)
#   Scripts/torture.sh encrypted  the same with every file encrypted (--encrypted)
#   Scripts/torture.sh quick      CI's short mode: about 5 minutes, small files, plain (then a
#                                 half minute of the retention workload alone, half a minute
#                                 beside 2 reader processes, and half a minute of 3 writer
#                                 processes and a reader) then encrypted (one writer, then half a
#                                 minute of 2 writer processes and a reader)
#   Scripts/torture.sh retention [KILLS]
#                                 replication slots with retention limits alone (default 1,000
#                                 kills, about 20 minutes): invalidations mid-run, kills aimed at
#                                 the invalidating commit, the slots checked after each kill
#   Scripts/torture.sh multiprocess [KILLS [--encrypted]]
#                                 one writer process and 2 read-only processes following it
#                                 (--readers 2; default 300 kills, a few minutes): readers are
#                                 SIGKILLed and restarted at random too, check every snapshot
#                                 they see (never going back, whole, unchanged while held, equal
#                                 to the model at its commit), and the file's growth stays bounded
#                                 (dead readers' pins are reclaimed). After a change to the lock
#                                 file, following, or a writer joining readers.
#   Scripts/torture.sh multiwriter [KILLS [--encrypted]]
#                                 3 writer processes writing the file at once and a reader
#                                 (--writers 3 --readers 1; default 300 kills, about ten
#                                 minutes): each writer in lanes of its own, all moving money in
#                                 one bank whose total is invariant; one or two writers SIGKILLed
#                                 at a time (and some killing themselves inside a flush or a warm
#                                 recovery) and restarted, the file checked beside the survivors
#                                 after each kill: every acknowledged commit of every writer, each
#                                 lane against its model, the bank's total, bounded growth, every
#                                 page every 10 kills. After a change to write ownership, warm
#                                 recovery, or adopting other processes' commits. Add
#                                 `--encrypted` (as a third argument, after KILLS) for an
#                                 encrypted file, after a change to the decrypted pages' cache
#                                 or the written-pages ring; `multiprocess` takes it too.
#   Scripts/torture.sh -- ARGS    realm-torture with your own arguments (see --help)
#
# A failure prints the seed and keeps the file: `--seed S` replays the same kills.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-long}
case "$mode" in
quick)
    # The debug build `swift test` already made: no extra compile in CI.
    swift build --product realm-torture
    .build/debug/realm-torture --minutes 1.5 --kills 250 --keys 4000 --max-value 16384 --verify-every 5 --quiet
    .build/debug/realm-torture --minutes 0.5 --kills 40 --workloads retention --keys 4000 --max-value 16384 --verify-every 2 --quiet
    .build/debug/realm-torture --minutes 0.5 --kills 60 --readers 2 --keys 4000 --max-value 16384 --verify-every 5 --quiet
    .build/debug/realm-torture --minutes 0.5 --kills 40 --writers 3 --readers 1 --keys 4000 --max-value 16384 --verify-every 5 --quiet
    .build/debug/realm-torture --minutes 1 --kills 150 --keys 4000 --max-value 16384 --verify-every 5 --quiet --encrypted
    exec .build/debug/realm-torture --minutes 0.5 --kills 40 --writers 2 --readers 1 --keys 4000 --max-value 16384 --verify-every 5 --quiet --encrypted
    ;;
long)
    swift build -c release --product realm-torture
    exec .build/release/realm-torture --kills 2000 --keys 150000 --verify-every 10
    ;;
encrypted)
    swift build -c release --product realm-torture
    exec .build/release/realm-torture --kills 2000 --keys 150000 --verify-every 10 --encrypted
    ;;
retention)
    swift build -c release --product realm-torture
    exec .build/release/realm-torture --kills "${2:-1000}" --workloads retention --keys 20000 --max-value 65536 --verify-every 4
    ;;
multiprocess)
    swift build -c release --product realm-torture
    exec .build/release/realm-torture --kills "${2:-300}" --readers 2 --keys 20000 --max-value 65536 --verify-every 10 ${3:+"$3"}
    ;;
multiwriter)
    swift build -c release --product realm-torture
    exec .build/release/realm-torture --kills "${2:-300}" --writers 3 --readers 1 --keys 20000 --max-value 65536 --verify-every 10 ${3:+"$3"}
    ;;
--)
    shift
    swift build -c release --product realm-torture
    exec .build/release/realm-torture "$@"
    ;;
*)
    echo "usage: Scripts/torture.sh [quick | long | encrypted | retention [KILLS] | multiprocess [KILLS [--encrypted]] | multiwriter [KILLS [--encrypted]] | -- ARGS]" >&2
    exit 2
    ;;
esac
