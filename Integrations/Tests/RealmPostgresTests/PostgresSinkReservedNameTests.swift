import Foundation
import Logging
import MetricsTestKit
import PostgresNIO
import RealmActors
@testable import RealmPostgres
import Testing

/// A class without a primary key with a property named like its table's key column.
final class SinkKeyless: Object {
    @Persisted var _realm_key = 0
    @Persisted var label = ""
}

/// A class named like the sink's progress table.
final class SinkProgressLookalike: Object {
    override class func className() -> String { "realm_replication_progress" }
    @Persisted(primaryKey: true) var id = 0
}

// One model across a migration that introduces a reserved name.
final class SinkWidgetV1: Object {
    override class func className() -> String { "SinkWidget" }
    @Persisted var label = ""
}

final class SinkWidgetV2: Object {
    override class func className() -> String { "SinkWidget" }
    @Persisted var label = ""
    @Persisted var _realm_key = 0
}

/// Names the mapping cannot hold: refused before the slot is created or a snapshot loaded, and
/// at the commit of a migration that introduces one — a stop, never a retry loop.
extension PostgresSinkTests {
    @Test(arguments: ["key column", "sink table"])
    func aSchemaWithAReservedNameIsRefusedBeforeTheSlotIsCreated(_ name: String) async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let (type, message): (Object.Type, String) = switch name {
        case "key column": (SinkKeyless.self, "class 'SinkKeyless' has no primary key and a property '_realm_key'")
        default: (SinkProgressLookalike.self, "class 'realm_replication_progress' is named like the sink's own tables")
        }
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("reserved.realm"), objectTypes: [SinkNote.self, type])
        let realm = try await Realm.open(configuration: configuration)
        try await Self.write(realm, notes: 0..<3, "note")
        let metrics = TestMetrics()
        try await Self.withDatabase { client in
            let error = await Self.stop(of: Self.sink(configuration, "reserved", client, metrics: metrics))
            #expect(error?.reason == .reservedName)
            #expect(error?.description.contains(message) == true, "\(error?.description ?? "no error")")
            _ = realm.refresh()
            let slots = try realm.replicationSlots
            #expect(slots.isEmpty)  // refused before the slot is created
            #expect(try await Self.rows(of: "realm_replication_progress", in: client).isEmpty)
            #expect(try await client.query(#"SELECT 1 FROM pg_tables WHERE tablename = 'SinkNote'"#).collect().isEmpty)
            #expect(try Self.stops(metrics, slot: "reserved", .reservedName) == 1)
            #expect(try metrics.expectCounter("realm.replication.errors", [("slot", "reserved")]).totalValue == 0)
        }
    }

    /// A migration in the backlog that gives a class without a primary key a property
    /// `_realm_key`: the sink applies the commits before it, then stops at it — on every start,
    /// without retrying.
    @Test func aMigrationThatIntroducesAReservedNameStopsAtItsCommit() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("widgets.realm")
        let metrics = TestMetrics()
        try await Self.withDatabase { client in
            let before: UInt64
            do {
                let configuration = Realm.Configuration(fileURL: url, objectTypes: [SinkNote.self, SinkWidgetV1.self])
                let realm = try await Realm.open(configuration: configuration)
                try await realm.asyncWrite { realm.create(SinkWidgetV1.self, value: ["label": "old"]) }
                try await Self.replicate(Self.sink(configuration, "widgets", client, metrics: metrics),
                                         through: try await Self.write(realm, notes: 0..<5, "first"))
                before = try await Self.write(realm, notes: 5..<10, "pending")  // the sink stopped
            }
            var configuration = Realm.Configuration(fileURL: url, objectTypes: [SinkNote.self, SinkWidgetV2.self])
            configuration.schemaVersion = 1
            let realm = try await Realm.open(configuration: configuration)
            try await Self.write(realm, notes: 10..<15, "after the migration")
            for run in 1...2 {
                let error = await Self.stop(of: Self.sink(configuration, "widgets", client, metrics: metrics))
                #expect(error?.reason == .reservedName)
                #expect(error?.description.contains("class 'SinkWidget' has no primary key and a property '_realm_key'") == true)
                #expect(try Self.stops(metrics, slot: "widgets", .reservedName) == Int64(run))
            }
            #expect(try metrics.expectCounter("realm.replication.errors", [("slot", "widgets")]).totalValue == 0)
            // The commits before the migration are in PostgreSQL, none after it.
            #expect(try await Self.rows(of: "SinkNote", in: client).count == 10)
            var versions: [Int64] = []
            for try await version in try await client.query("SELECT version FROM realm_replication_progress").decode(Int64.self) { versions.append(version) }
            #expect(versions == [Int64(before)])
        }
    }
}
