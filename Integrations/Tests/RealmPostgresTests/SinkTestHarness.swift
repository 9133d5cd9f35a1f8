import Foundation
import Logging
import PostgresNIO
import RealmActors
@testable import RealmPostgres
import Testing

/// What the snapshot and stop tests share: running a sink until PostgreSQL holds a version,
/// running one that must stop, and PostgreSQL's rows against the realm's objects.
extension PostgresSinkTests {
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
