#!/usr/bin/env bash
# Crash-safety torture: writers SIGKILLed at random moments, every acknowledged commit and the
# whole content checked against a model after each kill, every page checked every 10 kills.
# See Sources/realm-torture/Driver.swift for what is checked, and DocC's "Crash safety" article.
#
#   Scripts/torture.sh            the release check: 2,000 kills, files past 1 GB (about an hour)
#   Scripts/torture.sh encrypted  the same with every file encrypted (--encrypted)
#   Scripts/torture.sh quick      CI's short mode: under 3 minutes, small files, plain then encrypted
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
    .build/debug/realm-torture --minutes 2 --kills 300 --keys 4000 --max-value 16384 --verify-every 5 --quiet
    exec .build/debug/realm-torture --minutes 1 --kills 150 --keys 4000 --max-value 16384 --verify-every 5 --quiet --encrypted
    ;;
long)
    swift build -c release --product realm-torture
    exec .build/release/realm-torture --kills 2000 --keys 150000 --verify-every 10
    ;;
encrypted)
    swift build -c release --product realm-torture
    exec .build/release/realm-torture --kills 2000 --keys 150000 --verify-every 10 --encrypted
    ;;
--)
    shift
    swift build -c release --product realm-torture
    exec .build/release/realm-torture "$@"
    ;;
*)
    echo "usage: Scripts/torture.sh [quick | long | encrypted | -- ARGS]" >&2
    exit 2
    ;;
esac
