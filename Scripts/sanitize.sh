#!/usr/bin/env bash
# Builds the package and runs its tests under a sanitizer, in the sanitizer's own scratch path
# (a sanitizer build shares nothing with the plain one).
#
#   Scripts/sanitize.sh address [SWIFT-TEST-ARGS…]   AddressSanitizer + LeakSanitizer (.build-asan)
#   Scripts/sanitize.sh thread  [SWIFT-TEST-ARGS…]   ThreadSanitizer (.build-tsan)
#
# e.g. `Scripts/sanitize.sh thread --filter RealmStorageTests`. Every test process and every
# child it runs (realm-inspect, realm-crash-writer) is instrumented; the sanitizers' reports go
# to files under the scratch path, one per process, and are summed up at the end. The run fails
# if a test fails or any process reported anything (suppressed reports excepted).
#
# thread builds with -DREALM_PTHREAD_LOCKS: `Lock` is then a pthread mutex, which TSan
# intercepts (it does not understand `Synchronization.Mutex`'s futex). Each suppression, in
# Scripts/lsan-suppressions.txt and Scripts/tsan-suppressions.txt, says why it is not a bug.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizer=${1:-}
shift || true
case "$sanitizer" in
address)
    scratch=.build-asan
    flags=(--sanitize=address)
    reports=$scratch/reports
    # detect_leaks: LeakSanitizer at each process's exit (the default on Linux, stated here).
    export ASAN_OPTIONS="detect_leaks=1:log_path=$PWD/$reports/asan"
    export LSAN_OPTIONS="suppressions=$PWD/Scripts/lsan-suppressions.txt:print_suppressions=0"
    ;;
thread)
    scratch=.build-tsan
    flags=(--sanitize=thread -Xswiftc -DREALM_PTHREAD_LOCKS)
    reports=$scratch/reports
    # halt_on_error=0: go on after a report, so one run lists them all.
    export TSAN_OPTIONS="suppressions=$PWD/Scripts/tsan-suppressions.txt:halt_on_error=0:log_path=$PWD/$reports/tsan"
    ;;
*)
    echo "usage: Scripts/sanitize.sh address|thread [swift test arguments…]" >&2
    exit 2
    ;;
esac

rm -rf "$reports"
mkdir -p "$reports"
status=0
swift build --scratch-path "$scratch" --build-tests "${flags[@]}"
swift test --scratch-path "$scratch" --skip-build "${flags[@]}" "$@" || status=$?

# One file per process that reported (named by pid); count the reports in them.
count=0
shopt -s nullglob
files=("$reports"/*)
for file in "${files[@]}"; do
    found=$(grep -cE '^(WARNING: ThreadSanitizer|==[0-9]+==ERROR: (AddressSanitizer|LeakSanitizer))' "$file" || true)
    count=$((count + found))
    echo "--- $file: $found report(s)"
    cat "$file"
done
echo "sanitize.sh $sanitizer: $count report(s) from ${#files[@]} process(es), swift test exit status $status"
# A process that reported exits non-zero, which fails its test; a report in a process whose
# status no test checks still fails the run here.
if [[ $count -gt 0 && $status -eq 0 ]]; then status=1; fi
exit "$status"
