import Foundation
import Logging
import MetricsTestKit
import PostgresNIO
import RealmActors
@testable import RealmPostgres
import Testing

final class SinkNote: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = ""
}

/// A class without a primary key: replicated by object key (`_realm_key`).
final class SinkTag: Object {
    @Persisted var label = ""
}

final class SinkPlace: EmbeddedObject {
    @Persisted var city = ""
    @Persisted var floor = 0
}

final class SinkItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var score = 0.0
    @Persisted var labels: List<String>
    @Persisted var place: SinkPlace?
    @Persisted var tag: SinkTag?
    @Persisted var note: SinkNote?
}

/// The sink against a real PostgreSQL (Scripts/test-replication.sh starts one and sets
/// REALM_POSTGRES_*); skipped without one. The time limit bounds a hang: the slowest test (100,000
/// objects loaded and compared twice, in a debug build) takes ~35 s alone and over 2 minutes
/// beside the suite's other tests on a loaded 2-core machine.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["REALM_POSTGRES_PORT"] != nil), .timeLimit(.minutes(5)))
struct PostgresSinkTests {
    static func client() -> PostgresClient {
        let environment = ProcessInfo.processInfo.environment
        return PostgresClient(configuration: .init(
            host: environment["REALM_POSTGRES_HOST"] ?? "127.0.0.1", port: Int(environment["REALM_POSTGRES_PORT"] ?? "") ?? 5432,
            username: environment["REALM_POSTGRES_USER"] ?? "postgres", password: nil,
            database: environment["REALM_POSTGRES_DATABASE"] ?? "postgres", tls: .disable))
    }

    /// A commit applied twice (a restart between PostgreSQL's commit and the slot's
    /// confirmation) changes nothing the second time.
    @Test func aCommitAppliedTwiceChangesNothing() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("notes.realm"), objectTypes: [SinkNote.self])
        let realm = try await Realm.open(configuration: configuration)
        let slot = "twice_\(UInt32.random(in: 0...UInt32.max))"
        try await realm.asyncWrite { try realm.createReplicationSlot(named: slot) }
        try await realm.asyncWrite { realm.create(SinkNote.self, value: ["id": 1, "text": "first"]) }
        try await realm.asyncWrite { realm.object(ofType: SinkNote.self, forPrimaryKey: 1)!.text = "second" }
        try await Self.withDatabase { client in
            let sink = PostgresReplicationSink(configuration: configuration, slot: slot, client: client, logger: Logger(label: "sink-tests"))
            _ = try await sink.prepare()  // the initial snapshot: the realm at the slot's position, empty
            var commits: [Realm.Commit] = []
            for try await commit in realm.commits(since: slot) {
                commits.append(commit)
                if commits.count == 2 { break }
            }
            try await sink.apply(commits)
            // The first again (a restart that re-reads it): the progress row says it is applied,
            // so the row keeps "second" rather than going back to "first".
            try await sink.apply([commits[0]])
            let rows = try await client.query("SELECT text FROM \"SinkNote\" WHERE id = 1")
            var texts: [String] = []
            for try await text in rows.decode(String.self) { texts.append(text) }
            #expect(texts == ["second"])
        }
    }

    /// A fresh database on the server, dropped when `body` returns: each test's tables apart.
    static func withDatabase<R>(_ body: (PostgresClient) async throws -> R) async throws -> R {
        let admin = client()
        let name = "realm_test_\(UInt32.random(in: 0...UInt32.max))"
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await admin.run() }
            defer { group.cancelAll() }
            try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
            let environment = ProcessInfo.processInfo.environment
            let client = PostgresClient(configuration: .init(
                host: environment["REALM_POSTGRES_HOST"] ?? "127.0.0.1", port: Int(environment["REALM_POSTGRES_PORT"] ?? "") ?? 5432,
                username: environment["REALM_POSTGRES_USER"] ?? "postgres", password: nil, database: name, tls: .disable))
            let result = try await withThrowingTaskGroup(of: Void.self) { inner in
                inner.addTask { await client.run() }
                defer { inner.cancelAll() }
                return try await body(client)
            }
            try await admin.query(PostgresQuery(unsafeSQL: "DROP DATABASE \(name) WITH (FORCE)"))
            return result
        }
    }

    /// Every row of `table` as JSON text, in key order.
    static func rows(of table: String, in client: PostgresClient) async throws -> [String] {
        var rows: [String] = []
        let result = try await client.query(PostgresQuery(unsafeSQL: "SELECT row_to_json(t)::text FROM \"\(table)\" t ORDER BY 1"))
        for try await row in result.decode(String.self) { rows.append(row) }
        return rows
    }

    /// Commits applied in batches of random sizes (their net effect per object, in multi-row
    /// statements) leave the same rows as the same commits applied one at a time; and those rows
    /// hold the realm's objects, with changes made only to embedded objects and links to a class
    /// without a primary key.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func batchesLeaveTheRowsSingleCommitsLeave(seed: UInt64) async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("items.realm"),
                                                objectTypes: [SinkItem.self, SinkPlace.self, SinkTag.self, SinkNote.self])
        let realm = try await Realm.open(configuration: configuration)
        try await realm.asyncWrite { try realm.createReplicationSlot(named: "batches") }
        var random = SeededRandom(state: seed)
        for commit in 0..<150 {
            try await realm.asyncWrite {
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let id = Int.random(in: 0..<25, using: &random)
                    guard let item = realm.object(ofType: SinkItem.self, forPrimaryKey: id) else {
                        realm.create(SinkItem.self, value: ["id": id, "title": "new \(commit)", "score": Double(commit) / 4,
                                                            "labels": ["l\(commit % 3)"], "place": ["city": "c\(commit)", "floor": 1]])
                        continue
                    }
                    switch Int.random(in: 0..<9, using: &random) {
                    case 0: item.title = "edited \(commit) \"quoted\""
                    case 1: item.place?.city = "moved \(commit)"  // an embedded object alone
                    case 2: item.place = Bool.random(using: &random) ? nil : SinkPlace(value: ["city": "new \(commit)", "floor": commit])
                    case 3: item.labels.append("x\(commit)")
                    case 4: realm.delete(item)
                    case 5: item.tag = realm.create(SinkTag.self, value: ["label": "t\(commit)"])
                    case 6: if let tag = realm.objects(SinkTag.self).first { realm.delete(tag) }  // links to it become null
                    case 7: item.note = realm.create(SinkNote.self, value: ["id": commit % 5, "text": "n\(commit)"], update: .modified)
                    default: item.score += 1
                    }
                }
            }
        }
        // A last commit that surely changes something: one whose writes were all no-ops (an
        // edit of a missing place) keeps no change record, so it would never be read.
        try await realm.asyncWrite { realm.create(SinkNote.self, value: ["id": 99, "text": "last"], update: .all) }
        let newest = realm.fileStatistics.version
        var commits: [Realm.Commit] = []
        for try await commit in realm.commits(since: "batches") {
            commits.append(commit)
            if commit.version >= newest { break }
        }
        let logger = Logger(label: "sink-tests")
        let tables = ["SinkItem", "SinkTag", "SinkNote"]
        let single = try await Self.withDatabase { client in
            let sink = PostgresReplicationSink(configuration: configuration, slot: "batches", client: client, logger: logger)
            _ = try await sink.prepare()
            for commit in commits { try await sink.apply([commit]) }
            var rows: [[String]] = []
            for table in tables { rows.append(try await Self.rows(of: table, in: client)) }
            return rows
        }
        let batched = try await Self.withDatabase { client in
            let sink = PostgresReplicationSink(configuration: configuration, slot: "batches", client: client, logger: logger)
            _ = try await sink.prepare()
            var rest = commits[...]
            while !rest.isEmpty {
                let count = Int.random(in: 1...40, using: &random)
                try await sink.apply(Array(rest.prefix(count)))
                rest = rest.dropFirst(count)
            }
            var rows: [[String]] = []
            for table in tables { rows.append(try await Self.rows(of: table, in: client)) }
            // The rows hold the realm's objects: embedded cities and links by object key too.
            var expected: [String] = []
            for item in realm.objects(SinkItem.self).sorted(byKeyPath: "id") {
                let tag = item.tag.flatMap(Realm.ObjectKey.init).map { "\($0)" } ?? "nil"
                expected.append("\(item.id) \(item.title) \(item.place?.city ?? "nil") \(tag) \(item.labels.count)")
            }
            var actual: [String] = []
            let result = try await client.query("""
                SELECT id, title, place->>'city', _realm_key, jsonb_array_length(labels) FROM "SinkItem" LEFT JOIN "SinkTag" ON tag = _realm_key ORDER BY id
                """)
            for try await (id, title, city, tag, labels) in result.decode((Int, String, String?, Int64?, Int).self) {
                actual.append("\(id) \(title) \(city ?? "nil") \(tag.map { "\(Realm.ObjectKey.objectKey(UInt64(bitPattern: $0)))" } ?? "nil") \(labels)")
            }
            #expect(actual == expected)
            return rows
        }
        #expect(single == batched)
        // The run exercised what it claims: items left, and tags made (and some linked to).
        #expect(!batched[0].isEmpty)
        #expect(commits.contains { $0.changes.contains { $0.className == "SinkTag" && !$0.inserted.isEmpty } })
    }

    /// A class a migration deletes: its table is dropped, in the commit's transaction, and no
    /// longer recorded as the slot's (``MappedTables``).
    @Test func aClassDroppedByAMigrationDropsItsTable() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        var configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("drop.realm"), objectTypes: [SinkNote.self, SinkTag.self])
        do {
            let realm = try await Realm.open(configuration: configuration)
            try await realm.asyncWrite { try realm.createReplicationSlot(named: "drop") }
            try await realm.asyncWrite {
                realm.create(SinkNote.self, value: ["id": 1, "text": "kept"])
                realm.create(SinkTag.self, value: ["label": "gone"])
            }
        }
        configuration.objectTypes = [SinkNote.self]
        configuration.schemaVersion = 1
        configuration.migrationBlock = { migration, _ in migration.deleteData(forType: "SinkTag") }
        let realm = try await Realm.open(configuration: configuration)
        var commits: [Realm.Commit] = []
        for try await commit in realm.commits(since: "drop") {
            commits.append(commit)
            if commits.count == 2 { break }
        }
        try await Self.withDatabase { client in
            let sink = PostgresReplicationSink(configuration: configuration, slot: "drop", client: client, logger: Logger(label: "sink-tests"))
            _ = try await sink.prepare()
            try await sink.apply([commits[0]])
            #expect(try await Self.rows(of: "SinkTag", in: client).count == 1)
            try await sink.apply([commits[1]])
            var tables: [String] = []
            for try await name in try await client.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1").decode(String.self) {
                tables.append(name)
            }
            #expect(tables == ["SinkNote", "realm_replication_dead_letters", "realm_replication_progress", "realm_replication_tables"])
            // No longer the sink's: a table of that name made later is not dropped by a snapshot.
            var mapped: [String] = []
            for try await name in try await client.query("SELECT table_name FROM realm_replication_tables ORDER BY 1").decode(String.self) {
                mapped.append(name)
            }
            #expect(mapped == ["SinkNote"])
        }
    }
}

extension PostgresSinkTests {
    /// Waits until `condition` holds, checking every 10 ms: for a state the sink reaches on its
    /// own (a retry, a catch-up) that no event announces. The suite's time limit bounds it.
    static func waitUntil(_ condition: () async throws -> Bool) async throws {
        while try await !condition() { try await Task.sleep(for: .milliseconds(10)) }
    }

    /// PostgreSQL refusing a commit's rows (a CHECK constraint), with dead letters off
    /// (`deadLetterAfter: nil`), is retried, not fatal: the errors counter and the backlog
    /// gauges show it stuck; once the constraint goes, the sink applies the commit on its own,
    /// confirms it, and the gauges go back to zero.
    @Test func aFailureIsRetriedAndTheMetricsShowTheBacklog() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("retry.realm"), objectTypes: [SinkNote.self])
        let realm = try await Realm.open(configuration: configuration)
        try await realm.asyncWrite { try realm.createReplicationSlot(named: "retry") }
        try await realm.asyncWrite { realm.create(SinkNote.self, value: ["id": 1, "text": "refused"]) }
        let newest = realm.fileStatistics.version
        let metrics = TestMetrics()
        let slot = [("slot", "retry")]
        try await Self.withDatabase { client in
            try await client.query(#"CREATE TABLE "SinkNote" (id bigint PRIMARY KEY, text text CONSTRAINT no_refused CHECK (text <> 'refused'))"#)
            let sink = PostgresReplicationSink(configuration: configuration, slot: "retry", client: client,
                                               logger: Logger(label: "sink-tests"), confirmEvery: 1, confirmInterval: .zero, deadLetterAfter: nil, metricsFactory: metrics)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await sink.run() }
                try await Self.waitUntil { try metrics.expectCounter("realm.replication.errors", slot).totalValue >= 2 }
                #expect(try metrics.expectGauge("realm.replication.pending_commits", slot).lastValue == 1)
                #expect(try metrics.expectGauge("realm.replication.lag_seconds", slot).lastValue ?? 0 > 0)
                #expect(try metrics.expectGauge("realm.replication.retained_bytes", slot).lastValue ?? 0 > 0)
                #expect(await sink.appliedVersion < newest)
                try await client.query(#"ALTER TABLE "SinkNote" DROP CONSTRAINT no_refused"#)
                try await Self.waitUntil { await sink.appliedVersion >= newest }
                group.cancelAll()
            }
            #expect(try await Self.rows(of: "SinkNote", in: client) == [#"{"id":1,"text":"refused"}"#])
            #expect(try metrics.expectCounter("realm.replication.commits", slot).totalValue == 1)
            #expect(try metrics.expectGauge("realm.replication.pending_commits", slot).lastValue == 0)
            #expect(try metrics.expectGauge("realm.replication.lag_seconds", slot).lastValue == 0)
            #expect(try metrics.expectTimer("realm.replication.lag", slot).values.count == 1)
        }
        _ = realm.refresh()
        #expect(try realm.replicationSlots.first?.backlog.commits == 0)  // confirmed (confirmEvery: 1)
    }

    /// A progress row written by a sink from before rows recorded their slot id and commit id
    /// (which loaded no snapshot either): the sink stops, rather than trust it.
    @Test func aProgressRowWithoutIdentityStopsTheSink() async throws {
        let directory = try TestDirectory()
        defer { directory.remove() }
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("old.realm"), objectTypes: [SinkNote.self])
        let realm = try await Realm.open(configuration: configuration)
        try await realm.asyncWrite { try realm.createReplicationSlot(named: "old") }
        let metrics = TestMetrics()
        try await Self.withDatabase { client in
            // The table and row as the first sink wrote them.
            try await client.query("CREATE TABLE realm_replication_progress (slot text PRIMARY KEY, version bigint NOT NULL)")
            try await client.query("INSERT INTO realm_replication_progress (slot, version) VALUES ('old', \(Int64(realm.fileStatistics.version)))")
            let sink = PostgresReplicationSink(configuration: configuration, slot: "old", client: client, logger: Logger(label: "sink-tests"),
                                               metricsFactory: metrics)
            let error = await #expect(throws: ReplicationSinkError.self) { try await sink.run() }
            #expect(error?.reason == .unidentifiedProgress)
            #expect(error?.description.contains("resynchronize: true") == true)
            #expect(try metrics.expectCounter("realm.replication.stops", [("slot", "old"), ("reason", "unidentified_progress")]).totalValue == 1)
        }
    }
}

/// A directory of one test's own (removed by `remove()`, deferred at creation: not in a deinit,
/// which could run at the value's last use, before the test is done with the files).
struct TestDirectory {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("PostgresSinkTests-\(UUID().uuidString)")
    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// A small deterministic generator (SplitMix64), so that a failing seed can be run again.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
