import Foundation
import PostgresNIO
import RealmActors
@testable import RealmPostgres
import Testing

/// How row writes are combined into statements (no PostgreSQL needed).
struct RowStatementsTests {
    /// Adds to `statements` a write named `name` that takes `count` parameters.
    static func write(_ name: String, binds count: Int, to statements: inout RowStatements) {
        statements.append(bindCount: count) { binds in
            for value in 0..<count { binds.append(Int64(value)) }
            return "INSERT INTO \(name) VALUES ($\(binds.count))"
        }
    }

    @Test func writesShareAStatementUntilTheBindLimit() {
        var statements = RowStatements()
        for name in ["a", "b", "c", "d"] { Self.write(name, binds: 10_000, to: &statements) }
        let queries = statements.statements()
        #expect(queries.count == 2)
        #expect(queries.map(\.binds.count) == [30_000, 10_000])
        // The first writes chained as common table expressions, the last one the statement; the
        // placeholders number the binds of the statement they are in.
        #expect(queries.first?.sql == "WITH w0 AS (INSERT INTO a VALUES ($10000)), w1 AS (INSERT INTO b VALUES ($20000)) INSERT INTO c VALUES ($30000)")
        #expect(queries.last?.sql == "INSERT INTO d VALUES ($10000)")
    }

    @Test func noWritesAreNoStatement() {
        #expect(RowStatements().statements().isEmpty)
        var one = RowStatements()
        Self.write("a", binds: 1, to: &one)
        #expect(one.statements().map(\.sql) == ["INSERT INTO a VALUES ($1)"])
    }
}

extension PostgresSinkTests {
    /// Upserts and deletes of two tables combined into statements (two: past the bind limit)
    /// leave the rows the same writes made one by one would: every value lands in its own row,
    /// so each write's placeholders name its own binds.
    @Test func combinedWritesLeaveTheirRows() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("rows.realm"),
                                                objectTypes: [SinkNote.self, SinkTag.self])
        let realm = try await Realm.open(configuration: configuration)
        try await realm.asyncWrite {
            for id in 50..<12_050 { realm.create(SinkNote.self, value: ["id": id, "text": "n\(id)"]) }
            for label in 0..<5_000 { realm.create(SinkTag.self, value: ["label": "t\(label)"]) }
        }
        let schema = realm.schema
        let notes = TableMapping(schema["SinkNote"]!, schema: schema), tags = TableMapping(schema["SinkTag"]!, schema: schema)
        func frozen(_ className: String) -> [(key: Realm.ObjectKey, object: Frozen<DynamicObject>)] {
            realm.dynamicObjects(className).map { (key: Realm.ObjectKey($0)!, object: $0.freeze()) }
        }
        var rows = RowStatements()
        notes.upserts(frozen("SinkNote"), columns: notes.columns, into: &rows)  // 24,000 binds
        tags.upserts(frozen("SinkTag"), columns: tags.columns, into: &rows)  // 10,000: a second statement
        notes.deletes((0..<10).map { .int($0) }, into: &rows)
        let statements = rows.statements()
        #expect(statements.count == 2)
        try await Self.withDatabase { client in
            for statement in notes.creation(known: []) + tags.creation(known: []) { try await client.query(statement) }
            try await client.query(#"INSERT INTO "SinkNote" SELECT id, 'old' FROM generate_series(0, 99) AS id"#)
            try await client.withTransaction(logger: .init(label: "row-statements")) { connection in
                for statement in statements { try await connection.query(statement, logger: .init(label: "row-statements")) }
            }
            func count(_ sql: String) async throws -> Int {
                var result = -1
                for try await value in try await client.query(PostgresQuery(unsafeSQL: sql)).decode(Int.self) { result = value }
                return result
            }
            #expect(try await count(#"SELECT count(*) FROM "SinkNote""#) == 12_040)  // 0..<10 deleted
            #expect(try await count(#"SELECT count(*) FROM "SinkNote" WHERE text = 'old'"#) == 40)  // 10..<50 untouched
            #expect(try await count(#"SELECT count(*) FROM "SinkNote" WHERE id >= 50 AND text = 'n' || id"#) == 12_000)
            #expect(try await count(#"SELECT count(*) FROM "SinkTag""#) == 5_000)
            // Every 50th tag's row holds its label under its object key.
            let labels = realm.objects(SinkTag.self).enumerated().filter { $0.offset % 50 == 0 }.map { ($0.element.label, Realm.ObjectKey($0.element)!) }
            var matching = 0
            for (label, key) in labels {
                guard case .objectKey(let value) = key else { continue }
                matching += try await count(#"SELECT count(*) FROM "SinkTag" WHERE _realm_key = \#(Int64(bitPattern: value)) AND label = '\#(label)'"#)
            }
            #expect(matching == labels.count && labels.count == 100)
        }
    }
}
