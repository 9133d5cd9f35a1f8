import Foundation
import Logging
import MetricsTestKit
import PostgresNIO
import RealmActors
@testable import RealmPostgres
import Testing

/// What the sink's tests share: the notes realm and its sink, running a sink until PostgreSQL
/// holds a version, running one that must stop, and PostgreSQL's rows against the realm's objects.
extension PostgresSinkTests {
    /// A realm of ``SinkNote``s in `directory`.
    static func notesConfiguration(_ directory: TestDirectory) -> Realm.Configuration {
        Realm.Configuration(fileURL: directory.url.appendingPathComponent("notes.realm"), objectTypes: [SinkNote.self])
    }

    /// Writes notes `ids` (creating or editing them) in one commit; returns the commit's version.
    @discardableResult
    static func write(_ realm: Realm, notes ids: Range<Int>, _ text: String) async throws -> UInt64 {
        try await realm.asyncWrite {
            for id in ids { realm.create(SinkNote.self, value: ["id": id, "text": "\(text) \(id)"], update: .modified) }
        }
        return realm.fileStatistics.version
    }

    /// A sink of `slot` on the notes realm, with the options the tests vary.
    static func sink(_ configuration: Realm.Configuration, _ slot: String, _ client: PostgresClient, metrics: TestMetrics = TestMetrics(),
                     confirmEvery: Int = 32, slotLimits: Realm.ReplicationRetentionLimits = .init(),
                     resynchronize: Bool = false) -> PostgresReplicationSink {
        PostgresReplicationSink(configuration: configuration, slot: slot, client: client, logger: Logger(label: "sink-tests"),
                                confirmEvery: confirmEvery, confirmInterval: .zero, slotLimits: slotLimits, resynchronize: resynchronize, metricsFactory: metrics)
    }

    /// A notes realm in a directory of its own, with notes `ids` written in one commit before
    /// any slot (as ``write(_:notes:_:)`` writes them, with `text`; none if empty), and a fresh database
    /// (``withDatabase(_:)``): `body` with the realm's configuration, the realm and the database's
    /// client. The directory is removed when `body` returns.
    static func withNotes<R>(_ ids: Range<Int> = 0..<0, _ text: String = "before the slot",
                             _ body: (Realm.Configuration, Realm, PostgresClient) async throws -> R) async throws -> R {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let configuration = notesConfiguration(directory)
        let realm = try await Realm.open(configuration: configuration)
        if !ids.isEmpty { try await write(realm, notes: ids, text) }
        return try await withDatabase { client in try await body(configuration, realm, client) }
    }

    /// Runs `sink` until it has applied `version` (or, with nil, until it has loaded its
    /// snapshot or checked its progress row), then cancels it and waits for `run()` to return.
    /// Throws what `run()` throws if it stops first.
    static func replicate(_ sink: PostgresReplicationSink, through version: UInt64?) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { try await sink.run(); return false }
            group.addTask { try await waitUntil { await sink.appliedVersion >= (version ?? 1) }; return true }
            let reached = try await group.next()!
            try await cancelAndDrain(&group)
            if !reached { Issue.record("the sink returned before applying version \(version ?? 1)") }
        }
    }

    /// Cancels the group's tasks and waits for them, a cancelled sink's CancellationError
    /// ignored; throws any other error they end with.
    static func cancelAndDrain<T>(_ group: inout ThrowingTaskGroup<T, any Error>) async throws {
        group.cancelAll()
        while true {
            do {
                guard try await group.next() != nil else { break }
            } catch is CancellationError {}
        }
    }

    /// The stop `sink.run()` ends with; records an issue if it returns without one.
    static func stop(of sink: PostgresReplicationSink) async -> ReplicationSinkError? {
        await #expect(throws: ReplicationSinkError.self) { try await sink.run() }
    }

    /// The tables of a realm's top-level classes, in name order.
    static func tables(of realm: Realm) -> [String] {
        realm.schema.objectSchema.filter { !$0.isEmbedded }.map(\.className).sorted()
    }

    /// Every row of each of `tables`, as ``rows(of:in:)`` reads them.
    static func rows(of tables: [String], in client: PostgresClient) async throws -> [String: [String]] {
        var rows: [String: [String]] = [:]
        for table in tables { rows[table] = try await Self.rows(of: table, in: client) }
        return rows
    }

    /// The rows PostgreSQL should hold for `realm`'s objects now: each object written with the
    /// batches' statements (``TableMapping/upserts(_:columns:)``, every column) into a database
    /// of their own — the reference the initial snapshot's COPY and the commits after it must
    /// match, value for value.
    static func expectedRows(of realm: Realm) async throws -> [String: [String]] {
        _ = realm.refresh()
        let schema = realm.schema
        return try await withDatabase { client in
            for objectSchema in schema.objectSchema where !objectSchema.isEmbedded {
                let mapping = TableMapping(objectSchema, schema: schema)
                for statement in mapping.creation(known: []) { try await client.query(statement) }
                let objects = realm.dynamicObjects(objectSchema.className).map { (key: Realm.ObjectKey($0)!, object: $0.freeze()) }
                for statement in mapping.upserts(objects, columns: mapping.columns) { try await client.query(statement) }
            }
            return try await rows(of: tables(of: realm), in: client)
        }
    }

    /// Whether PostgreSQL's rows are the realm's objects, row by row (``expectedRows(of:)``);
    /// records which table differs, and how, if not.
    static func expectEqual(_ client: PostgresClient, _ realm: Realm, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let expected = try await expectedRows(of: realm)
        let actual = try await rows(of: tables(of: realm), in: client)
        for (table, rows) in expected.sorted(by: { $0.key < $1.key }) {
            let found = actual[table] ?? []
            guard found != rows else { continue }
            let missing = Set(rows).subtracting(found), extra = Set(found).subtracting(rows)
            Issue.record("""
                \(table): \(found.count) rows, \(rows.count) objects; \(missing.count) objects without their row \
                (\(missing.sorted().prefix(2))), \(extra.count) rows without their object (\(extra.sorted().prefix(2)))
                """, sourceLocation: sourceLocation)
        }
    }
}
