#!/usr/bin/env bash
# Runs the libFuzzer harnesses of Fuzz/Harnesses (the `realm-fuzz` target) on the code that decodes
# untrusted bytes: a realm file, a write-ahead log, RQL predicates, a realm-inspect dump, stored
# and JSON values, replication slots and change records, the shared lock file. See CONTRIBUTING.md ("Fuzzing").
#
#   bash Scripts/fuzz.sh TARGET SECONDS   one harness (file, log, query, load, values, replication, lockfile) for SECONDS
#   bash Scripts/fuzz.sh all SECONDS      each harness in turn, SECONDS each
#   bash Scripts/fuzz.sh seeds            regenerate Fuzz/Corpus and Fuzz/Fixtures (then commit them)
#
# Builds with -sanitize=fuzzer,address in .build-fuzz. Each harness starts from its checked-in
# seeds (Fuzz/Corpus/TARGET) and writes the inputs it finds to $REALM_FUZZ_WORK/TARGET/corpus
# (default ${TMPDIR:-/tmp}/realm-fuzz, outside git), and a crash, leak or timeout to
# $REALM_FUZZ_WORK/TARGET/crash-… (or leak-…, timeout-…): replay one with
# `swift run realm-fuzz TARGET FILE`, fix it, add a regression test and the input to the corpus.
# Extra libFuzzer flags go in REALM_FUZZ_FLAGS (e.g. "-jobs=2 -workers=2").
# Exits 1 if a harness found something.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(file log query load values replication lockfile)
usage() { echo "usage: $0 {${targets[*]// /|}|all} SECONDS | $0 seeds" >&2; exit 2; }

if [[ "${1:-}" == seeds ]]; then
    swift build --product realm-fuzz
    swift build --product realm-inspect
    bin="$(swift build --show-bin-path)"
    "$bin/realm-fuzz" seeds Fuzz
    # Dumped from a copy: opening a file leaves a lock file beside it.
    copy="$(mktemp -d)"
    cp Fuzz/Corpus/file/populated.realm "$copy/"
    mkdir -p Fuzz/Corpus/load
    "$bin/realm-inspect" dump "$copy/populated.realm" > Fuzz/Corpus/load/populated.dump
    rm -rf "$copy"
    exit 0
fi

[[ $# -eq 2 && "$2" =~ ^[0-9]+$ ]] || usage
case "$1" in
    all) selected=("${targets[@]}") ;;
    file|log|query|load|values|replication|lockfile) selected=("$1") ;;
    *) usage ;;
esac
seconds=$2
work="${REALM_FUZZ_WORK:-${TMPDIR:-/tmp}/realm-fuzz}"

# Debug by default: CI builds it from scratch in ~2.5 minutes. A release build runs 3-10 times as
# many inputs a second but takes ~7 minutes to build: REALM_FUZZ_CONFIGURATION=release for long runs.
configuration="${REALM_FUZZ_CONFIGURATION:-debug}"
build_start=$SECONDS
swift build -c "$configuration" --product realm-fuzz --scratch-path .build-fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DREALM_LIBFUZZER 2>&1 | grep -v "Cannot export local symbol" || true
bin="$(swift build -c "$configuration" --scratch-path .build-fuzz --show-bin-path)/realm-fuzz"
[[ -x "$bin" ]] || { echo "fuzz.sh: the build failed" >&2; exit 1; }
echo "fuzz.sh: built ($configuration) in $((SECONDS - build_start))s"

# A trap is a crash to libFuzzer (the Swift backtracer would only slow it down); leaks are
# findings; a Swift runtime trap reports through ASan's handler.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:handle_abort=1:allocator_may_return_null=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/Fuzz/lsan-suppressions.txt:print_suppressions=0}"

found=0
summary=()
for target in "${selected[@]}"; do
    dir="$work/$target"
    mkdir -p "$dir/corpus"
    log="$dir/fuzz.log"
    echo "fuzz.sh: $target for ${seconds}s (log $log)"
    status=0
    # shellcheck disable=SC2086
    # -handle_xfsz=0: the log harness caps file sizes (a record may claim any length) and
    # ignores SIGXFSZ, so that growing past the cap is the EFBIG error an open must throw.
    REALM_FUZZ_TARGET="$target" "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -handle_xfsz=0 \
        -artifact_prefix="$dir/" -print_final_stats=1 ${REALM_FUZZ_FLAGS:-} \
        "$dir/corpus" "Fuzz/Corpus/$target" > "$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    corpus=$(find "$dir/corpus" -type f | wc -l)
    line="$target: ${runs:-?} executions, ${rate:-?}/s, $corpus inputs in $dir/corpus"
    if [[ $status -ne 0 ]]; then
        found=1
        artifact=$(grep -o "Test unit written to .*" "$log" | tail -1 | sed 's/Test unit written to //')
        line="$line — FOUND (exit $status): ${artifact:-see $log}"
        grep -E "ERROR: |Fatal error|SUMMARY" "$log" | head -5 || true
    fi
    summary+=("$line")
    rm -rf /dev/shm/realm-fuzz-* 2>/dev/null || true
done
printf 'fuzz.sh: %s\n' "${summary[@]}"
exit $found
