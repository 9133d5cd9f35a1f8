#!/usr/bin/env bash
# Measures a 1M-object migration (a block that rewrites one property of every object) against
# the same rewrite as a plain write transaction: time and peak RSS, each in its own process.
#
#   bash Scripts/migration-bench.sh            # 1,000,000 objects
#   bash Scripts/migration-bench.sh 100000     # another size
#
# Builds the `migration-bench` product of the Benchmarks package in release mode first.
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-1000000}"
swift build -c release --package-path Benchmarks --product migration-bench >&2
bin="$(swift build -c release --package-path Benchmarks --show-bin-path)/migration-bench"
dir="$(mktemp -d "${TMPDIR:-/tmp}/migration-bench.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
"$bin" setup "$dir/base.realm" "$count"
echo "$count objects, file $(du -h "$dir/base.realm" | cut -f1)"
cp "$dir/base.realm" "$dir/update.realm"
cp "$dir/base.realm" "$dir/migrate.realm"
"$bin" update "$dir/update.realm"
"$bin" migrate "$dir/migrate.realm"
