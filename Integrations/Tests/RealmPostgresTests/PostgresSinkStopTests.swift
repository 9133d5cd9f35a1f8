import Foundation
import Logging
import MetricsTestKit
import PostgresNIO
import RealmActors
@testable import RealmPostgres
import Testing

/// Each way PostgreSQL's progress row and the realm come apart: the sink stops with the reason,
/// counts it, changes no row — and a resynchronization makes PostgreSQL equal to the realm again.
extension PostgresSinkTests {
    /// A dump of the notes' table and the progress table, as a backup would take it.
    static func dump(_ client: PostgresClient) async throws {
        try await client.query(#"CREATE TABLE dump_notes AS SELECT * FROM "SinkNote""#)
        try await client.query("CREATE TABLE dump_progress AS SELECT * FROM realm_replication_progress")
    }

    /// The dump restored over both tables.
    static func restoreDump(_ client: PostgresClient) async throws {
        for statement in [#"TRUNCATE "SinkNote""#, #"INSERT INTO "SinkNote" SELECT * FROM dump_notes"#,
                          "TRUNCATE realm_replication_progress", "INSERT INTO realm_replication_progress SELECT * FROM dump_progress"] {
            try await client.query(PostgresQuery(unsafeSQL: statement))
        }
    }

    static func stops(_ metrics: TestMetrics, slot: String, _ reason: ReplicationSinkError.Reason) throws -> Int64 {
        try metrics.expectCounter("realm.replication.stops", [("slot", slot), ("reason", reason.rawValue)]).totalValue
    }

    /// PostgreSQL restored to an earlier state after the slot confirmed past it (a backup, a
    /// point-in-time restore, an asynchronous standby promoted): the commits between are gone
    /// from the realm, so the sink stops — postgresBehind — rather than skip them.
    @Test func postgreSQLRestoredBehindTheSlotStops() async throws {
        let metrics = TestMetrics()
        try await Self.withNotes(0..<50) { configuration, realm, client in
            func sink(resynchronize: Bool = false) -> PostgresReplicationSink {
                Self.sink(configuration, "behind", client, metrics: metrics, confirmEvery: 1, resynchronize: resynchronize)
            }
            try await Self.replicate(sink(), through: nil)
            try await Self.replicate(sink(), through: try await Self.write(realm, notes: 40..<60, "first"))
            try await Self.dump(client)
            try await Self.write(realm, notes: 55..<70, "second")
            let target = try await Self.write(realm, notes: 0..<5, "third")
            try await Self.replicate(sink(), through: target)  // confirmed one by one: the slot is past the dump
            try await Self.restoreDump(client)  // under the stopped sink
            let restored = try await Self.rows(of: ["SinkNote", "realm_replication_progress"], in: client)
            let error = await Self.stop(of: sink())
            #expect(error?.reason == .postgresBehind)
            #expect(error?.description.contains("restored") == true)
            #expect(try await Self.rows(of: ["SinkNote", "realm_replication_progress"], in: client) == restored)
            #expect(try Self.stops(metrics, slot: "behind", .postgresBehind) == 1)

            try await Self.replicate(sink(resynchronize: true), through: target)
            try await Self.expectEqual(client, realm)
            try await Self.replicate(sink(), through: try await Self.write(realm, notes: 65..<75, "after"))
            try await Self.expectEqual(client, realm)
        }
    }

    /// PostgreSQL restored behind the slot under a running sink: its next batch finds the row
    /// behind what it applied, and rather than apply after the row's position (skipping the
    /// commits between, which it used to do without a word) it checks the row again and stops —
    /// postgresBehind — writing nothing over the restored rows.
    @Test func postgreSQLRestoredUnderARunningSinkStops() async throws {
        try await Self.withNotes(0..<30) { configuration, realm, client in
            func sink() -> PostgresReplicationSink { Self.sink(configuration, "under", client, confirmEvery: 1) }
            try await Self.replicate(sink(), through: nil)
            try await Self.dump(client)
            let running = sink()
            var restored: [String: [String]] = [:]
            var target: UInt64 = 0
            do {
                let applied = try await withThrowingTaskGroup(of: Bool.self) { group in
                    group.addTask { try await running.run(); return false }
                    let lost = try await Self.write(realm, notes: 20..<40, "lost")
                    try await Self.waitUntil { await running.appliedVersion >= lost }
                    try await Self.restoreDump(client)  // while the sink waits for the next commit
                    restored = try await Self.rows(of: ["SinkNote", "realm_replication_progress"], in: client)
                    target = try await Self.write(realm, notes: 0..<5, "after the restore")
                    group.addTask { [target] in try await Self.waitUntil { await running.appliedVersion >= target }; return true }
                    defer { group.cancelAll() }
                    return try await group.next()!
                }
                Issue.record("the running sink \(applied ? "applied commits after the restored row's position" : "returned") without a stop")
            } catch let error as ReplicationSinkError {
                #expect(error.reason == .postgresBehind, "\(error)")
            }
            #expect(try await Self.rows(of: ["SinkNote", "realm_replication_progress"], in: client) == restored)
            // The snapshot is at the slot's position, before the last commit: replicated through it.
            try await Self.replicate(Self.sink(configuration, "under", client, resynchronize: true), through: target)
            try await Self.expectEqual(client, realm)
        }
    }

    /// PostgreSQL restored to an earlier state the slot still keeps (it had not confirmed past
    /// it): not a stop — the sink resumes from the restored row and replays what was lost.
    @Test func postgreSQLRestoredWithinTheSlotResumesFromIt() async throws {
        try await Self.withNotes(0..<20) { configuration, realm, client in
            func sink() -> PostgresReplicationSink { Self.sink(configuration, "within", client, confirmEvery: 1_000) }
            try await Self.replicate(sink(), through: nil)
            try await Self.dump(client)
            try await Self.write(realm, notes: 10..<30, "lost")
            try await Self.replicate(sink(), through: try await Self.write(realm, notes: 0..<3, "lost too"))
            try await Self.restoreDump(client)
            let target = try await Self.write(realm, notes: 25..<35, "new")
            try await Self.replicate(sink(), through: target)
            try await Self.expectEqual(client, realm)
        }
    }

    /// The slot dropped (then created again): its commits are not those PostgreSQL lacks, so
    /// the sink stops — slotMismatch — whether the slot is missing or has another id.
    @Test func aSlotDroppedAndCreatedAgainStops() async throws {
        let metrics = TestMetrics()
        try await Self.withNotes(0..<30) { configuration, realm, client in
            func sink(resynchronize: Bool = false) -> PostgresReplicationSink {
                Self.sink(configuration, "again", client, metrics: metrics, resynchronize: resynchronize)
            }
            try await Self.replicate(sink(), through: try await Self.write(realm, notes: 25..<35, "first"))
            let replicated = try await Self.rows(of: ["SinkNote", "realm_replication_progress"], in: client)
            try await realm.asyncWrite { try realm.dropReplicationSlot(named: "again") }
            try await Self.write(realm, notes: 0..<10, "unseen")
            let missing = await Self.stop(of: sink())
            #expect(missing?.reason == .slotMismatch)
            #expect(missing?.description.contains("has no replication slot 'again'") == true)
            _ = realm.refresh()
            #expect(try realm.replicationSlots.isEmpty)  // a stopped sink creates no slot

            try await realm.asyncWrite { try realm.createReplicationSlot(named: "again") }
            let target = try await Self.write(realm, notes: 30..<40, "second")
            let recreated = await Self.stop(of: sink())
            #expect(recreated?.reason == .slotMismatch)
            #expect(recreated?.description.contains("is not the slot") == true)
            #expect(try await Self.rows(of: ["SinkNote", "realm_replication_progress"], in: client) == replicated)
            #expect(try Self.stops(metrics, slot: "again", .slotMismatch) == 2)

            // The snapshot at the new slot's position, then the commit after it.
            try await Self.replicate(sink(resynchronize: true), through: target)
            try await Self.expectEqual(client, realm)
            #expect(try await Self.rows(of: "SinkNote", in: client).count == 40)
        }
    }

    /// The realm file replaced by an older `cp` copy: first not yet written past PostgreSQL's
    /// version (realmBehind), then written, so that its versions are another history's
    /// (otherHistory). Neither is applied over PostgreSQL's rows; a resynchronization is.
    @Test func aRealmReplacedByAnOlderCopyStops() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let configuration = Self.notesConfiguration(directory)
        let url = try #require(configuration.fileURL)
        let backup = directory.url.appendingPathComponent("backup.realm")
        let metrics = TestMetrics()
        try await Self.withDatabase { client in
            func sink(resynchronize: Bool = false) -> PostgresReplicationSink {
                Self.sink(configuration, "copy", client, metrics: metrics, resynchronize: resynchronize)
            }
            do {
                let realm = try await Realm.open(configuration: configuration)
                try await Self.write(realm, notes: 0..<20, "kept")
                try await Self.replicate(sink(), through: nil)
            }
            try FileManager.default.copyItem(at: url, to: backup)  // closed: a consistent copy
            do {
                let realm = try await Realm.open(configuration: configuration)
                try await Self.write(realm, notes: 15..<25, "lost")
                try await Self.replicate(sink(), through: try await Self.write(realm, notes: 0..<2, "lost too"))
            }
            let replicated = try await Self.rows(of: ["SinkNote", "realm_replication_progress"], in: client)
            try FileManager.default.removeItem(at: url)
            try FileManager.default.copyItem(at: backup, to: url)
            let behind = await Self.stop(of: sink())
            #expect(behind?.reason == .realmBehind)
            let realm = try await Realm.open(configuration: configuration)
            for commit in 0..<6 { try await Self.write(realm, notes: commit..<(commit + 3), "other history") }
            let other = await Self.stop(of: sink())
            #expect(other?.reason == .otherHistory)
            #expect(other?.description.contains("older copy") == true)
            #expect(try await Self.rows(of: ["SinkNote", "realm_replication_progress"], in: client) == replicated)
            #expect(try Self.stops(metrics, slot: "copy", .realmBehind) == 1)
            #expect(try Self.stops(metrics, slot: "copy", .otherHistory) == 1)

            try await Self.replicate(sink(resynchronize: true), through: nil)
            try await Self.replicate(sink(), through: try await Self.write(realm, notes: 18..<22, "after"))
            try await Self.expectEqual(client, realm)
        }
    }

    /// A slot created by the sink with a retention limit, past it while the sink was down: the
    /// slot is invalidated and the sink stops — slotInvalidated, even when asked to resynchronize,
    /// until the slot is dropped; then a resynchronization creates it again and loads a snapshot.
    @Test func anInvalidatedSlotStopsUntilDroppedAndResynchronized() async throws {
        let metrics = TestMetrics()
        try await Self.withNotes(0..<200) { configuration, realm, client in
            func sink(resynchronize: Bool = false) -> PostgresReplicationSink {
                Self.sink(configuration, "limited", client, metrics: metrics,
                          slotLimits: Realm.ReplicationRetentionLimits(maximumRetainedBytes: 64 << 10), resynchronize: resynchronize)
            }
            try await Self.replicate(sink(), through: nil)
            _ = realm.refresh()
            #expect(try realm.replicationSlots.first?.limits.maximumRetainedBytes == 64 << 10)
            for commit in 0..<40 { try await Self.write(realm, notes: 0..<200, "rewritten \(commit)") }
            _ = realm.refresh()
            #expect(try realm.replicationSlots.first?.invalidation != nil)
            let error = await Self.stop(of: sink())
            #expect(error?.reason == .slotInvalidated)
            #expect(error?.description.contains("realm-inspect drop-slot") == true)
            #expect(await Self.stop(of: sink(resynchronize: true))?.reason == .slotInvalidated)
            #expect(try Self.stops(metrics, slot: "limited", .slotInvalidated) == 2)

            try await realm.asyncWrite { try realm.dropReplicationSlot(named: "limited") }
            try await Self.replicate(sink(resynchronize: true), through: nil)
            try await Self.expectEqual(client, realm)
        }
    }

    /// The progress row deleted under a running sink (someone asking for a resynchronization
    /// the wrong way): the next batch stops the sink rather than write rows no row accounts for;
    /// started again, the sink finds no row and loads a snapshot.
    @Test func aProgressRowDeletedUnderARunningSinkStopsIt() async throws {
        try await Self.withNotes(0..<10) { configuration, realm, client in
            let sink = Self.sink(configuration, "deleted", client)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await sink.run() }
                try await Self.waitUntil { await sink.appliedVersion > 0 }
                try await client.query("DELETE FROM realm_replication_progress")
                try await Self.write(realm, notes: 5..<15, "unaccounted")
                await #expect { try await group.next() } throws: { ($0 as? ReplicationSinkError)?.reason == .progressChanged }
            }
            #expect(try await Self.rows(of: "SinkNote", in: client).count == 10)
            let target = try await Self.write(realm, notes: 0..<1, "again")
            try await Self.replicate(Self.sink(configuration, "deleted", client), through: target)
            try await Self.expectEqual(client, realm)
        }
    }
}
