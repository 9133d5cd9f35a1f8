#!/usr/bin/env bash
# The PostgreSQL sink's catch-up throughput, against a throwaway server (release build):
#
#   1. starts a server (Scripts/throwaway-postgres.sh);
#   2. realm-replication-check write --without-sink: 8 writer actors commit for N seconds (the
#      replication check's mix: inserts, updates, deletes, list edits, embedded edits, links)
#      with the slot created and no sink running, a backlog of a few tens of thousands commits;
#   3. realm-replication-check catch-up: the sink alone replicates the backlog, in batches of up
#      to its batchSize commits per PostgreSQL transaction; prints commits per second;
#   4. compare: every object against its row, so a fast run is also a correct one.
#
#   bash Scripts/measure-replication.sh [--seconds N]     # N seconds of writes (default 10)
#
# Prints `catch-up: C commits in S s (R commits/s)` and `replication: … 0 lost`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=10
[[ "${1:-}" == "--seconds" ]] && seconds="$2"

source Scripts/throwaway-postgres.sh

swift build -c release --package-path Integrations --product realm-replication-check >&2
check="$(swift build -c release --package-path Integrations --show-bin-path)/realm-replication-check"
data="$work/realm" && mkdir -p "$data" && chmod 777 "$data"

"$check" write "$data" "$seconds" --without-sink >&2
du -h "$data/replicated.realm" >&2
"$check" catch-up "$data"
"$check" compare "$data"
