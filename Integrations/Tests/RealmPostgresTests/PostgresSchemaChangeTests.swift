import Foundation
import Logging
import PostgresNIO
import RealmActors
@testable import RealmPostgres
import Testing

// One model across releases: each version a Swift class stored under the class name "Gadget".
final class GadgetV1: Object {
    override class func className() -> String { "Gadget" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var size = 0
    @Persisted var color = ""
}

/// `note` added (filled for old objects with the realm's value), `size` renamed `width`,
/// `color` removed.
final class GadgetV2: Object {
    override class func className() -> String { "Gadget" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var width = 0
    @Persisted var note = ""
}

/// `width` a string: its values stored anew by the migration.
final class GadgetV3: Object {
    override class func className() -> String { "Gadget" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var width = ""
    @Persisted var note = ""
}

/// A class whose primary key a migration moves from `id` to `code`.
final class PartV1: Object {
    override class func className() -> String { "Part" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var code = ""
}

final class PartV2: Object {
    override class func className() -> String { "Part" }
    @Persisted var id = 0
    @Persisted(primaryKey: true) var code = ""
}

final class OddValues: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = ""
    @Persisted var date = Date(timeIntervalSince1970: 0)
    @Persisted var decimal = Decimal128(0)
    @Persisted var double = 0.0
    @Persisted var mixed: AnyRealmValue = .none
}

/// Migrations in a backlog the sink has not applied: one PostgreSQL transaction per batch never
/// reads an object with another version's schema (the process used to trap on the first
/// property an older object lacks), and the DDL brings the table to each version; values
/// PostgreSQL cannot store as they are go through the documented mapping.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["REALM_POSTGRES_PORT"] != nil), .timeLimit(.minutes(2)))
struct PostgresSchemaChangeTests {
    static func configuration(_ directory: TestDirectory, version: UInt64, _ type: Object.Type,
                              migration: MigrationBlock? = nil) -> Realm.Configuration {
        var configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("gadgets.realm"))
        configuration.schemaVersion = version
        configuration.objectTypes = [type]
        configuration.migrationBlock = migration
        return configuration
    }

    /// Every commit the slot keeps, read until none is left.
    static func backlog(_ realm: Realm, slot: String) async throws -> [Realm.Commit] {
        var iterator = realm.commits(since: slot).makeAsyncIterator()
        var commits: [Realm.Commit] = []
        while try realm.replicationBacklog(after: commits.last?.version ?? realm.replicationSlots[0].confirmedVersion).commits > 0 {
            commits.append(try #require(try await iterator.next()))
        }
        return commits
    }

    static func columns(of table: String, in client: PostgresClient) async throws -> [String] {
        var names: [String] = []
        let rows = try await client.query("SELECT column_name FROM information_schema.columns WHERE table_name = \(table) ORDER BY column_name")
        for try await name in rows.decode(String.self) { names.append(name) }
        return names
    }

    @Test(arguments: [1, 64]) func migrationsInTheBacklogBecomeDDL(batchSize: Int) async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        do {
            let realm = try Realm(configuration: Self.configuration(directory, version: 1, GadgetV1.self))
            try realm.write { try realm.createReplicationSlot(named: "gadgets") }
            try realm.write {
                for id in 0..<100 { realm.create(GadgetV1.self, value: ["id": id, "name": "g\(id)", "size": id, "color": "red"]) }
            }
        }
        do {
            let realm = try Realm(configuration: Self.configuration(directory, version: 2, GadgetV2.self) { migration, _ in
                migration.renameProperty(onType: "Gadget", from: "size", to: "width")
                // Some objects get a note; the rest keep the added property's default.
                migration.enumerateObjects(ofType: "Gadget") { old, new in
                    if (old!["id"] as! Int) % 10 == 0 { new!["note"] = "tenth" }
                }
            })
            try realm.write {
                for id in 100..<200 { realm.create(GadgetV2.self, value: ["id": id, "name": "g\(id)", "width": id, "note": "new"]) }
                realm.object(ofType: GadgetV2.self, forPrimaryKey: 5)!.width = -5
            }
        }
        let configuration = Self.configuration(directory, version: 3, GadgetV3.self) { migration, _ in
            migration.enumerateObjects(ofType: "Gadget") { old, new in
                if (old!["id"] as! Int) < 150 { new!["width"] = "\(old!["width"] as! Int) mm" }
            }
        }
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.create(GadgetV3.self, value: ["id": 200, "name": "last", "width": "wide"]) }
        let commits = try await Self.backlog(realm, slot: "gadgets")
        #expect(commits.count == 5)  // 100 inserts, migration, 100 inserts and an edit, migration, an insert

        try await PostgresSinkTests.withDatabase { client in
            let sink = PostgresReplicationSink(configuration: configuration, slot: "gadgets", client: client, logger: Logger(label: "sink-tests"))
            _ = try await sink.prepare()  // the snapshot at the slot's position: before any object
            for start in stride(from: 0, to: commits.count, by: batchSize) {
                try await sink.apply(Array(commits[start..<min(commits.count, start + batchSize)]))
            }
            // The removed property's column stays (its old values kept); the others match.
            #expect(try await Self.columns(of: "Gadget", in: client) == ["color", "id", "name", "note", "width"])
            var rows: [Int: (name: String, width: String, note: String)] = [:]
            let result = try await client.query("SELECT id, name, width, note FROM \"Gadget\"")
            for try await (id, name, width, note) in result.decode((Int, String, String, String).self) { rows[id] = (name, width, note) }
            let objects = realm.objects(GadgetV3.self)
            #expect(rows.count == objects.count)
            for object in objects {
                let row = try #require(rows[object.id], "object \(object.id)")
                #expect(row.name == object.name && row.width == object.width && row.note == object.note, "object \(object.id)")
            }
            #expect(rows[5]?.width == "-5 mm" && rows[7]?.note == "" && rows[10]?.note == "tenth" && rows[160]?.width == "")
        }
    }

    /// A migration that changes a class's primary key reloads its table from the commit's realm
    /// (streamed with COPY): the table keyed by the new key, every object a row, the rows the
    /// migration's commit and the later ones wrote on top.
    @Test func aChangedPrimaryKeyReloadsTheTable() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        func configuration(_ version: UInt64, _ type: Object.Type) -> Realm.Configuration {
            var configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("parts.realm"))
            configuration.schemaVersion = version
            configuration.objectTypes = [type]
            return configuration
        }
        do {
            let realm = try Realm(configuration: configuration(1, PartV1.self))
            try realm.write { try realm.createReplicationSlot(named: "parts") }
            try realm.write { for id in 0..<3_000 { realm.create(PartV1.self, value: ["id": id, "code": "p\(id)"]) } }
        }
        let realm = try Realm(configuration: configuration(2, PartV2.self))
        try realm.write {
            realm.object(ofType: PartV2.self, forPrimaryKey: "p7")!.id = -7
            realm.create(PartV2.self, value: ["id": 3_000, "code": "new"])
        }
        let commits = try await Self.backlog(realm, slot: "parts")
        #expect(commits.count == 3)  // the inserts, the migration, the edit
        #expect(commits[1].schemaChanges == [.classRestructured("Part")])
        try await PostgresSinkTests.withDatabase { client in
            let sink = PostgresReplicationSink(configuration: realm.configuration, slot: "parts", client: client, logger: Logger(label: "sink-tests"))
            _ = try await sink.prepare()
            try await sink.apply(commits)
            let keys = try await client.query(#"SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = '"Part"'::regclass AND i.indisprimary"#)
            var key: [String] = []
            for try await name in keys.decode(String.self) { key.append(name) }
            #expect(key == ["code"])
            var rows: [String: Int] = [:]
            for try await (code, id) in try await client.query(#"SELECT code, id FROM "Part""#).decode((String, Int).self) { rows[code] = id }
            #expect(rows.count == 3_001)
            #expect(rows["p7"] == -7 && rows["new"] == 3_000 && rows["p2999"] == 2_999)
        }
    }

    /// Values PostgreSQL cannot store as they are: NUL in text and jsonb, dates past
    /// timestamptz's range, decimal NaN and infinities, floating-point NaN.
    @Test func valuesPostgreSQLCannotStoreAsTheyAreAreMapped() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("odd.realm"), objectTypes: [OddValues.self])
        let realm = try Realm(configuration: configuration)
        try realm.write { try realm.createReplicationSlot(named: "odd") }
        try realm.write {
            realm.create(OddValues.self, value: ["id": 1, "text": "a\u{0}b", "date": Date(timeIntervalSince1970: 1e15),
                                                 "decimal": Decimal128.nan, "double": Double.nan, "mixed": AnyRealmValue.string("x\u{0}")])
            realm.create(OddValues.self, value: ["id": 2, "date": Date(timeIntervalSince1970: -1e15), "decimal": Decimal128.infinity,
                                                 "double": Double.infinity])
            realm.create(OddValues.self, value: ["id": 3, "decimal": try! Decimal128(string: "1.5E-6170")] as [String: Any])
            realm.create(OddValues.self, value: ["id": 4, "decimal": -Decimal128.infinity] as [String: Any])
        }
        let commits = try await Self.backlog(realm, slot: "odd")
        try await PostgresSinkTests.withDatabase { client in
            let sink = PostgresReplicationSink(configuration: configuration, slot: "odd", client: client, logger: Logger(label: "sink-tests"))
            _ = try await sink.prepare()
            try await sink.apply(commits)
            var rows: [Int: [String]] = [:]
            let result = try await client.query("SELECT id, text, date::text, decimal::text, double::text, coalesce(mixed::text, '') FROM \"OddValues\"")
            for try await (id, text, date, decimal, double, mixed) in result.decode((Int, String, String, String, String, String).self) {
                rows[id] = [text, date, decimal, double, mixed]
            }
            #expect(rows[1] == ["a\u{FFFD}b", "infinity", "NaN", "NaN", "\"x\u{FFFD}\""])
            #expect(rows[2]?[1] == "-infinity" && rows[2]?[2] == "Infinity" && rows[2]?[3] == "Infinity")
            let tiny = rows[3]?[2] ?? ""
            #expect(tiny.hasPrefix("0.000") && tiny.hasSuffix("15"), "\(tiny.count) chars, ending \(tiny.suffix(12))")
            #expect(rows[4]?[2] == "-Infinity")
        }
    }
}
