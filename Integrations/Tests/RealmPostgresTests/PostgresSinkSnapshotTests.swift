import Foundation
import Logging
import MetricsTestKit
import PostgresNIO
import RealmActors
@testable import RealmPostgres
import Testing

/// Every kind of value a column holds, for the initial snapshot's COPY text to be checked
/// against the batches' parameters.
final class SinkRecord: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = ""
    @Persisted var optionalText: String?
    @Persisted var count = 0
    @Persisted var flag = false
    @Persisted var ratio: Float = 0
    @Persisted var score = 0.0
    @Persisted var blob = Data()
    @Persisted var date = Date(timeIntervalSince1970: 0)
    @Persisted var objectId = ObjectId.generate()
    @Persisted var amount = Decimal128(stringLiteral: "0")
    @Persisted var uuid = UUID()
    @Persisted var mixed: AnyRealmValue = .none
    @Persisted var numbers: List<Int>
    @Persisted var words: MutableSet<String>
    @Persisted var scores: Map<String, Double>
    @Persisted var place: SinkPlace?
    @Persisted var note: SinkNote?
    @Persisted var tag: SinkTag?
}

/// A class a migration adds.
final class SinkExtra: Object {
    @Persisted(primaryKey: true) var id = 0
}

extension PostgresSinkTests {
    /// A record of every kind of value, drawn from `random`: texts with COPY's special
    /// characters, dates before 1970 and 2000 and with fractions of microseconds, extreme floats.
    static func record(_ id: Int, note: SinkNote?, tag: SinkTag?, using random: inout SeededRandom) -> SinkRecord {
        let record = SinkRecord()
        record.id = id
        let texts = ["plain", "tab\there", "line\nbreak\r\n", #"back\slash \N"#, "quote \" ' ünïcødé 🎉", "", "\\."]
        record.text = "\(id) " + texts[Int.random(in: 0..<texts.count, using: &random)]
        record.optionalText = Bool.random(using: &random) ? nil : texts[Int.random(in: 0..<texts.count, using: &random)]
        record.count = Int.random(in: Int.min...Int.max, using: &random)
        record.flag = Bool.random(using: &random)
        record.ratio = [Float(1) / 3, .greatestFiniteMagnitude, -.leastNonzeroMagnitude, .infinity, .nan, 0][Int.random(in: 0..<6, using: &random)]
        record.score = [1.0 / 3, 1e300, -.leastNonzeroMagnitude, -.infinity, .nan, Double(id)][Int.random(in: 0..<6, using: &random)]
        record.blob = Data((0..<Int.random(in: 0..<12, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        record.date = Date(timeIntervalSince1970: Double.random(in: -3e10...3e9, using: &random))  // years 1019 to 2065
        record.amount = Decimal128(stringLiteral: ["1.5", "-0.000001", "12345678901234567890", "1E+20"][Int.random(in: 0..<4, using: &random)])
        record.uuid = UUID(uuid: (UInt8(id & 0xff), UInt8((id >> 8) & 0xff), 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, UInt8((id >> 16) & 0xff)))
        record.mixed = [.int(id), .string("m\t\(id)"), .double(0.5), .none, .bool(true)][Int.random(in: 0..<5, using: &random)]
        record.numbers.append(objectsIn: (0..<Int.random(in: 0..<4, using: &random)).map { $0 * id })
        record.words.insert("w\(id % 7)")
        record.scores["s"] = Double(id) / 7
        if Bool.random(using: &random) { record.place = SinkPlace(value: ["city": "c\t\(id % 13)", "floor": id % 9]) }
        record.note = note
        record.tag = tag
        return record
    }

    /// A slot created on a realm that already has 100,000 objects (10,000 of them with every
    /// kind of value): the sink loads them all
    /// (COPY, in one transaction with the progress row), then applies the commits after —
    /// edits of objects that existed before the slot among them — and PostgreSQL ends equal to
    /// the realm row by row, each value as the batches' parameters would have written it.
    @Test func aSlotOnARealmWithObjectsLoadsThemAllThenFollows() async throws {
        let seed: UInt64 = 38
        var random = SeededRandom(state: seed)
        let directory = try TestDirectory()
        defer { directory.remove() }
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("existing.realm"),
                                                objectTypes: [SinkRecord.self, SinkPlace.self, SinkNote.self, SinkTag.self])
        let realm = try await Realm.open(configuration: configuration)
        // 80,000 notes, 10,000 tags (a class without a primary key) and 10,000 records of every
        // kind of value, before any slot.
        for chunk in 0..<10 {
            try await realm.asyncWrite {
                for index in 0..<8_000 {
                    realm.add(SinkNote(value: ["id": chunk * 8_000 + index, "text": "note\t\(index)"]))
                }
                for index in 0..<1_000 { realm.add(SinkTag(value: ["label": "tag \(chunk) \(index)"])) }
                let tags = realm.objects(SinkTag.self)
                for index in 0..<1_000 {
                    let id = chunk * 1_000 + index
                    realm.add(Self.record(id, note: realm.object(ofType: SinkNote.self, forPrimaryKey: id * 7 % 80_000),
                                          tag: id % 3 == 0 ? tags[id % tags.count] : nil, using: &random))
                }
            }
        }
        #expect(realm.objects(SinkRecord.self).count + realm.objects(SinkNote.self).count + realm.objects(SinkTag.self).count == 100_000)
        let metrics = TestMetrics()
        try await Self.withDatabase { client in
            let sink = PostgresReplicationSink(configuration: configuration, slot: "existing", client: client,
                                               logger: Logger(label: "sink-tests"), metricsFactory: metrics)
            try await Self.replicate(sink, through: nil)  // the snapshot
            _ = realm.refresh()
            let slot = try #require(try realm.replicationSlots.first { $0.name == "existing" })
            #expect(await sink.appliedVersion == slot.confirmedVersion)
            #expect(try metrics.expectCounter("realm.replication.snapshot.rows", [("slot", "existing")]).totalValue == 100_000)
            try await Self.expectEqual(client, realm)
            // Commits after the snapshot, most to objects made before the slot; notes' edits write
        // one column of a row the snapshot made.
            for commit in 0..<20 {
                try await realm.asyncWrite {
                    let records = realm.objects(SinkRecord.self)
                    for _ in 0..<50 {
                        let record = records[Int.random(in: 0..<records.count, using: &random)]
                        switch Int.random(in: 0..<4, using: &random) {
                        case 0: record.text = "edited \(commit)\ttab"
                        case 1:
                            record.place?.floor += 1
                            realm.object(ofType: SinkNote.self, forPrimaryKey: record.id * 3)?.text = "edited \(commit)"
                        case 2: realm.delete(record)
                        default: realm.add(Self.record(10_000 + commit * 50 + Int.random(in: 0..<50, using: &random), note: nil, tag: nil,
                                                       using: &random), update: .modified)
                        }
                    }
                }
            }
            let target = realm.fileStatistics.version
            try await Self.replicate(PostgresReplicationSink(configuration: configuration, slot: "existing", client: client,
                                                             logger: Logger(label: "sink-tests")), through: target)
            try await Self.expectEqual(client, realm)
            var progress: [String] = []
            for try await (slotID, version, commitID) in try await client.query(
                "SELECT slot_id, version, commit_id FROM realm_replication_progress WHERE slot = 'existing'").decode((Int64, Int64, Int64).self) {
                progress.append("\(UInt64(bitPattern: slotID)) \(UInt64(bitPattern: version)) \(UInt64(bitPattern: commitID))")
            }
            var commits = realm.commits(after: slot.position).makeAsyncIterator()
            var last: Realm.Commit?
            while last.map({ $0.version < target }) ?? true { last = try await commits.next() }
            #expect(progress == ["\(slot.id) \(target) \(try #require(last).commitID)"], "seed \(seed)")
        }
    }

    /// The public tables of the database, in name order.
    static func tables(in client: PostgresClient) async throws -> [String] {
        var tables: [String] = []
        for try await name in try await client.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1").decode(String.self) {
            tables.append(name)
        }
        return tables
    }

    /// A resynchronization drops the tables of classes the realm no longer has — one the
    /// earlier snapshot loaded, one a commit created — but not a table the sink never mapped,
    /// nor one another slot's sink maps.
    @Test func aResynchronizationDropsTheTablesOfClassesTheRealmNoLongerHas() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("mapped.realm")
        try await Self.withDatabase { client in
            try await client.query("CREATE TABLE operator_audit (id bigint)")
            var configuration = Realm.Configuration(fileURL: url, objectTypes: [SinkNote.self, SinkTag.self, SinkItem.self, SinkPlace.self])
            do {
                let realm = try await Realm.open(configuration: configuration)
                try await realm.asyncWrite {
                    realm.create(SinkTag.self, value: ["label": "stale"])
                    realm.create(SinkItem.self, value: ["id": 1, "title": "stale"])
                }
                try await Self.replicate(Self.sink(configuration, "mapped", client), through: try await Self.write(realm, notes: 0..<3, "old"))
            }
            do {
                // A class a commit adds: its table created by the batch, and recorded.
                configuration.objectTypes = [SinkNote.self, SinkTag.self, SinkItem.self, SinkPlace.self, SinkExtra.self]
                configuration.schemaVersion = 1
                let migrated = try await Realm.open(configuration: configuration)
                try await migrated.asyncWrite { migrated.create(SinkExtra.self, value: ["id": 1]) }
                try await Self.replicate(Self.sink(configuration, "mapped", client), through: migrated.fileStatistics.version)
            }
            #expect(try await Self.tables(in: client) == ["SinkExtra", "SinkItem", "SinkNote", "SinkTag", "operator_audit",
                                                         "realm_replication_dead_letters", "realm_replication_progress", "realm_replication_tables"])
            // Another slot's sink maps SinkItem too.
            try await client.query("INSERT INTO realm_replication_tables VALUES ('other', 'SinkItem')")
            // Another realm, of notes alone, under the same slot name (the realm replaced).
            configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("replaced.realm"), objectTypes: [SinkNote.self])
            let realm = try await Realm.open(configuration: configuration)
            try await Self.write(realm, notes: 5..<8, "new")
            try await Self.replicate(Self.sink(configuration, "mapped", client, resynchronize: true), through: nil)
            #expect(try await Self.tables(in: client) == ["SinkItem", "SinkNote", "operator_audit",
                                                         "realm_replication_dead_letters", "realm_replication_progress", "realm_replication_tables"])
            try await Self.expectEqual(client, realm)
            var mapped: [String] = []
            for try await (slot, table) in try await client.query("SELECT slot, table_name FROM realm_replication_tables ORDER BY 1, 2").decode((String, String).self) {
                mapped.append("\(slot) \(table)")
            }
            #expect(mapped == ["mapped SinkNote", "other SinkItem"])
        }
    }

    /// COPY text reads back as the parameters' values: each encoding against PostgreSQL's own
    /// reading of the bound value, for the awkward cases one at a time.
    @Test func copyTextMatchesBoundParameters() async throws {
        let values: [(ColumnBinding, String)] = [
            (.text("a\tb\nc\rd\\e \\N é"), "text"), (.text(""), "text"), (.null, "text"), (.int(.min), "bigint"),
            (.bool(false), "boolean"), (.float(.nan), "real"), (.float(-.infinity), "real"), (.float(1.1), "real"),
            (.double(.leastNonzeroMagnitude), "double precision"), (.double(0.1 + 0.2), "double precision"),
            (.bytes([0, 92, 9, 255]), "bytea"), (.bytes([]), "bytea"),
            (.date(Date(timeIntervalSince1970: -62_135_596_800 - 86_400 * 400)), "timestamptz"),  // 1 BC
            (.date(Date(timeIntervalSince1970: 946_684_799.999_999_5)), "timestamptz"),
            // 1.7 µs after and before 2000: truncated (as postgres-nio does), not rounded.
            (.date(Date(timeIntervalSince1970: 946_684_800.000_001_7)), "timestamptz"),
            (.date(Date(timeIntervalSince1970: 946_684_799.999_998_3)), "timestamptz"),
            (.date(Date(timeIntervalSince1970: -1.000_000_9)), "timestamptz"), (.date(Date(timeIntervalSince1970: 4e11)), "timestamptz"),
            (.uuid(UUID()), "uuid"), (.text(#"{"a": "\t\\"}"#), "jsonb"), (.text("-1.5E+3"), "numeric"),
        ]
        try await Self.withDatabase { client in
            try await client.query("CREATE TABLE copied (n int, t text, v text)")
            try await client.query("CREATE TABLE bound (n int, t text, v text)")
            for (number, (value, type)) in values.enumerated() {
                var binds = PostgresBindings()
                value.append(to: &binds)
                try await client.query(PostgresQuery(unsafeSQL: "INSERT INTO bound VALUES (\(number), '\(type)', ($1::\(type))::text)", binds: binds))
                try await client.withConnection { connection in
                    try await connection.query(PostgresQuery(unsafeSQL: "CREATE TEMP TABLE one (v \(type))"), logger: Logger(label: "sink-tests"))
                    try await connection.copyFrom(table: "one", logger: Logger(label: "sink-tests")) { writer in
                        var buffer = ByteBuffer()
                        value.appendCopyText(to: &buffer)
                        buffer.writeString("\n")
                        try await writer.write(buffer)
                    }
                    try await connection.query(PostgresQuery(unsafeSQL: "INSERT INTO copied SELECT \(number), '\(type)', v::text FROM one"),
                                               logger: Logger(label: "sink-tests"))
                    try await connection.query("DROP TABLE one", logger: Logger(label: "sink-tests"))
                }
            }
            var copied: [String] = [], bound: [String] = []
            for try await (n, t, v) in try await client.query("SELECT n, t, v FROM copied ORDER BY n").decode((Int, String, String?).self) {
                copied.append("\(n) \(t) \(v ?? "NULL")")
            }
            for try await (n, t, v) in try await client.query("SELECT n, t, v FROM bound ORDER BY n").decode((Int, String, String?).self) {
                bound.append("\(n) \(t) \(v ?? "NULL")")
            }
            #expect(copied.count == values.count)
            #expect(copied == bound)
        }
    }
}
