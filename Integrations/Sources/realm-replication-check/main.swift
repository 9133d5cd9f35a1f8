// The replication check that Scripts/test-replication.sh runs against a throwaway PostgreSQL
// (REALM_POSTGRES_HOST, _PORT, _USER, _DATABASE in the environment):
//
//   realm-replication-check write DIR SECONDS   8 writer actors commit inserts, updates, deletes,
//                                               list edits, edits of embedded objects alone and links
//                                               to a class without a primary key (whose deletion
//                                               nullifies them) for SECONDS while the sink replicates; the
//                                               script may SIGKILL it at any moment. Each writer
//                                               appends its acknowledged commits to DIR/acks-<n>.
//   realm-replication-check write DIR SECONDS --without-sink
//                                               the same writes, with no sink: a backlog for catch-up
//                                               to measure (Scripts/measure-replication.sh).
//   realm-replication-check catch-up DIR        the sink alone, until PostgreSQL holds the realm's
//                                               last commit; prints the commits per second.
//   realm-replication-check migrate DIR         with no sink running (a backlog pending): migrates the
//                                               realm to schema version 2 (Item's `count` renamed
//                                               `quantity`, `flag` removed, `note` added and set on
//                                               every third object, `score` a string: a type
//                                               change), then 200 commits in the new schema; later
//                                               modes open it at version 2, and compare checks
//                                               Item by its new columns.
//   realm-replication-check compare DIR         every object against its row, and every row against
//                                               an object; prints `replication: N commits, M objects
//                                               replicated, L lost` and exits 1 unless L is 0.
//   realm-replication-check populate DIR N      N small objects (`Small`: id, name, score, flag) in
//                                               DIR/snapshot.realm, with no slot, and the same rows
//                                               in DIR/small.csv: the initial snapshot's input, and
//                                               the floor's (psql's COPY of the CSV file).
//   realm-replication-check snapshot DIR        a sink on DIR/snapshot.realm with no progress row:
//                                               creates its slot and loads the initial snapshot;
//                                               prints the objects per second (Scripts/measure-replication.sh
//                                               runs it under /usr/bin/time -v for the peak RSS).
//   realm-replication-check samples DIR ACTION  the scenarios on a realm of `Sample`s: populate,
//                                               edit, extreme values, the slot, the sink until
//                                               caught up or stopped (exit 3), and the comparison
//                                               by the documented mapping (SampleScenarios.swift).
//
// One file per group of modes: StreamModes.swift (write, catch-up, migrate, compare),
// SnapshotModes.swift (populate, snapshot), SampleScenarios.swift and SampleComparison.swift
// (samples); what they share is in CheckEnvironment.swift, the classes in Models.swift.
import Foundation

guard CommandLine.arguments.count >= 3, let mode = CommandLine.arguments.dropFirst().first else {
    print("usage: realm-replication-check write DIR SECONDS [--without-sink] | catch-up DIR | migrate DIR | compare DIR | populate DIR COUNT | snapshot DIR | samples DIR ACTION …")
    exit(2)
}
switch mode {
case "write": try await writeMode()
case "catch-up": try await catchUpMode()
case "migrate": try migrateMode()
case "compare": exit(try await (isMigrated ? compareMigratedMode() : compareMode()) ? 0 : 1)
case "populate": try populateMode()
case "snapshot": try await snapshotMode()
case "samples": exit(try await samplesMode())
default:
    print("unknown mode \(mode)")
    exit(2)
}
