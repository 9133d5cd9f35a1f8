#!/usr/bin/env bash
# The damage corpus at full size: N copies of a small realm (default 400), each damaged in a
# seeded-random way (flipped bits, a zeroed page, a truncation, a page copied over another, 64
# random bytes), and every realm-inspect command run on each. Each must exit 0 or 1 (1 with a
# message naming the damaged page), never die of a signal or hang. The same for N damaged copies
# of an encrypted realm (with its key, and with a wrong one), and for N damaged write-ahead logs
# beside a realm, plain and encrypted (truncated, bit flips in the header, a record's header or
# its images, another file's record, junk or a torn append after the last record): there the
# open must also keep every commit whose record lies before the damage. The normal suite runs 24,
# 12 and 2 x 14 variants (Tests/RealmInspectTests/DamageCorpusTests*.swift, about a minute).
#
#   Scripts/damage.sh [N]     about 4 s per variant number (all four corpora) on a debug build
#
# Variant n is damaged by a generator seeded with n: a failure names the variant, and its file
# is kept in .build/damage-failures/ to replay (`realm-inspect <command> .build/damage-failures/variant-n.realm`).
set -euo pipefail
cd "$(dirname "$0")/.."

variants=${1:-400}
keep=.build/damage-failures
rm -rf "$keep" && mkdir -p "$keep"
swift build --build-tests
REALM_DAMAGE_VARIANTS="$variants" REALM_DAMAGE_KEEP="$PWD/$keep" \
    swift test --skip-build --filter DamageCorpusTests 2>&1 | grep -v '^\[' 
