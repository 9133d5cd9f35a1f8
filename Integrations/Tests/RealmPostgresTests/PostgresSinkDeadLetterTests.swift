import Foundation
import Logging
import MetricsTestKit
import PostgresNIO
import RealmActors
@testable import RealmPostgres
import Testing

/// Rows PostgreSQL refuses for good (a CHECK constraint, a trigger an operator added) become
/// dead letters after `deadLetterAfter` attempts, and the stream goes on; errors waiting mends
/// are retried, never dead-lettered.
extension PostgresSinkTests {
    /// A dead letter as the tests compare them: class, key, operation, version, SQLSTATE.
    struct DeadLetterRow: Hashable, CustomStringConvertible {
        let className, key, operation: String
        let version: Int64
        let sqlState: String
        var description: String { "\(className) \(key) \(operation) @\(version) \(sqlState)" }
    }

    static func deadLetters(in client: PostgresClient) async throws -> [DeadLetterRow] {
        var letters: [DeadLetterRow] = []
        let rows = try await client.query("SELECT class, object_key, operation, version, sqlstate FROM realm_replication_dead_letters ORDER BY id")
        for try await (className, key, operation, version, sqlState) in rows.decode((String, String, String, Int64, String).self) {
            letters.append(DeadLetterRow(className: className, key: key, operation: operation, version: version, sqlState: sqlState))
        }
        return letters
    }

    /// That a sink wrote and counted no dead letter, and PostgreSQL holds the realm.
    static func expectNoDeadLetters(_ metrics: TestMetrics, slot: [(String, String)], _ client: PostgresClient, _ realm: Realm,
                                    sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(try metrics.expectCounter("realm.replication.dead_letters", slot).totalValue == 0, sourceLocation: sourceLocation)
        #expect(try await deadLetters(in: client).isEmpty, sourceLocation: sourceLocation)
        try await expectEqual(client, realm, sourceLocation: sourceLocation)
    }

    /// A CHECK constraint that refuses notes whose text starts with "poison", and a trigger that
    /// refuses every write and deletion of note 7 — both added by an "operator" after the
    /// snapshot, with a backlog pending: after 3 failed attempts, the sink applies the commits
    /// one at a time and the refused one row by row; the 3 refused rows are dead letters, every
    /// other row and the later commits arrive. A restart, and the same commits delivered again,
    /// write no dead letter twice. The documented replay then makes PostgreSQL equal to the realm.
    @Test func refusedRowsBecomeDeadLettersAndTheStreamGoesOn() async throws {
        let metrics = TestMetrics()
        let slot = [("slot", "poison")]
        try await Self.withNotes(0..<10, "before") { configuration, realm, client in
            func sink() -> PostgresReplicationSink { Self.sink(configuration, "poison", client, metrics: metrics, confirmEvery: 1_000) }
            try await Self.replicate(sink(), through: nil)
            try await client.query(#"ALTER TABLE "SinkNote" ADD CONSTRAINT no_poison CHECK (text NOT LIKE 'poison%')"#)
            try await client.query("""
                CREATE FUNCTION refuse_seven() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                  IF (TG_OP = 'DELETE' AND OLD.id = 7) OR (TG_OP <> 'DELETE' AND NEW.id = 7) THEN RAISE EXCEPTION 'note 7 is frozen'; END IF;
                  RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
                END $$
                """)
            try await client.query(#"CREATE TRIGGER refuse_seven BEFORE INSERT OR UPDATE OR DELETE ON "SinkNote" FOR EACH ROW EXECUTE FUNCTION refuse_seven()"#)

            // The backlog, one batch: a fine commit; one with a poison note, an edit of note 7 and
            // a fine edit; another fine one; the deletion of notes 2 and 7.
            let first = try await Self.write(realm, notes: 10..<13, "fine")
            try await realm.asyncWrite {
                for id in 13..<16 { realm.create(SinkNote.self, value: ["id": id, "text": id == 14 ? "poison \(id)" : "fine \(id)"], update: .modified) }
                realm.object(ofType: SinkNote.self, forPrimaryKey: 7)!.text = "edited 7"
                realm.object(ofType: SinkNote.self, forPrimaryKey: 3)!.text = "edited 3"
            }
            let poisoned = realm.fileStatistics.version
            try await Self.write(realm, notes: 16..<18, "fine")
            try await realm.asyncWrite {
                for id in [2, 7] { realm.delete(realm.object(ofType: SinkNote.self, forPrimaryKey: id)!) }
            }
            let deleted = realm.fileStatistics.version
            try await Self.replicate(sink(), through: deleted)

            #expect(try metrics.expectCounter("realm.replication.errors", slot).totalValue >= 3)
            #expect(try metrics.expectCounter("realm.replication.dead_letters", slot).totalValue == 3)
            #expect(try metrics.expectCounter("realm.replication.commits", slot).totalValue == 4)
            let expected: Set = [
                DeadLetterRow(className: "SinkNote", key: "14", operation: "write", version: Int64(poisoned), sqlState: "23514"),
                DeadLetterRow(className: "SinkNote", key: "7", operation: "write", version: Int64(poisoned), sqlState: "P0001"),
                DeadLetterRow(className: "SinkNote", key: "7", operation: "delete", version: Int64(deleted), sqlState: "P0001"),
            ]
            #expect(Set(try await Self.deadLetters(in: client)) == expected)
            // Every other row: notes 0 to 17 but the poison 14 and the deleted 2; 7 as it was.
            var texts: [Int: String] = [:]
            for try await (id, text) in try await client.query(#"SELECT id, text FROM "SinkNote""#).decode((Int, String).self) { texts[id] = text }
            #expect(texts.keys.sorted() == Array(0..<18).filter { $0 != 2 && $0 != 14 })
            #expect(texts[7] == "before 7" && texts[3] == "edited 3" && texts[15] == "fine 15" && texts[17] == "fine 17")
            let row = try await client.query("SELECT row_data::text, message FROM realm_replication_dead_letters WHERE object_key = '14'")
            for try await (data, message) in row.decode((String, String).self) {
                #expect(data == #"{"id": "14", "text": "poison 14"}"#)
                #expect(message.contains("no_poison"))
            }

            // A restart (the slot was never confirmed: confirmEvery 1,000, and a cancelled sink
            // does not confirm), then the same commits delivered again, isolated and not: no
            // dead letter twice, no row changed.
            var commits: [Realm.Commit] = []
            for try await commit in realm.commits(since: "poison") {
                commits.append(commit)
                if commit.version >= deleted { break }
            }
            #expect(commits.first?.version == first && commits.count == 4)
            let before = try await Self.rows(of: ["SinkNote", "realm_replication_progress"], in: client)
            try await Self.replicate(sink(), through: deleted)
            let again = sink()
            _ = try await again.prepare()
            try await again.applyIsolatingPoison(commits)
            try await again.apply(commits)
            #expect(try await Self.deadLetters(in: client).count == 3)
            #expect(try await Self.rows(of: ["SinkNote", "realm_replication_progress"], in: client) == before)
            #expect(try metrics.expectCounter("realm.replication.dead_letters", slot).totalValue == 3)

            // The operator mends the cause and replays the dead letters, oldest first, as the
            // sink's documentation says: PostgreSQL equals the realm again.
            try await client.query(#"DROP TRIGGER refuse_seven ON "SinkNote""#)
            try await client.query(#"ALTER TABLE "SinkNote" DROP CONSTRAINT no_poison"#)
            try await client.query("""
                DO $$ DECLARE letter record; BEGIN
                  FOR letter IN SELECT * FROM realm_replication_dead_letters WHERE slot = 'poison' AND class = 'SinkNote' ORDER BY id LOOP
                    IF letter.operation = 'delete' THEN
                      DELETE FROM "SinkNote" WHERE id = letter.object_key::bigint;
                    ELSE
                      INSERT INTO "SinkNote" SELECT * FROM jsonb_populate_record(NULL::"SinkNote", letter.row_data)
                        ON CONFLICT (id) DO UPDATE SET text = EXCLUDED.text;
                    END IF;
                    DELETE FROM realm_replication_dead_letters WHERE id = letter.id;
                  END LOOP;
                END $$
                """)
            try await Self.expectEqual(client, realm)
            try await Self.replicate(sink(), through: try await Self.write(realm, notes: 14..<20, "after"))
            try await Self.expectEqual(client, realm)
            #expect(try await Self.deadLetters(in: client).isEmpty)
        }
    }

    /// A deferred constraint (an operator's `UNIQUE … DEFERRABLE INITIALLY DEFERRED`) fails a
    /// batch only at its `COMMIT`; isolating it checks constraints at each statement, so the row
    /// that breaks it is found and set aside, and the stream goes on (it was retried forever).
    @Test func aDeferredConstraintsRowBecomesADeadLetter() async throws {
        let metrics = TestMetrics()
        try await Self.withNotes(0..<3, "before") { configuration, realm, client in
            func sink() -> PostgresReplicationSink { Self.sink(configuration, "deferred", client, metrics: metrics) }
            try await Self.replicate(sink(), through: nil)
            try await client.query(#"ALTER TABLE "SinkNote" ADD CONSTRAINT one_text UNIQUE (text) DEFERRABLE INITIALLY DEFERRED"#)
            try await realm.asyncWrite {
                realm.create(SinkNote.self, value: ["id": 10, "text": "twin"])
                realm.create(SinkNote.self, value: ["id": 11, "text": "twin"])
                realm.create(SinkNote.self, value: ["id": 12, "text": "single"])
            }
            let after = try await Self.write(realm, notes: 20..<22, "after")
            try await Self.replicate(sink(), through: after)
            let letters = try await Self.deadLetters(in: client)
            #expect(letters.count == 1 && letters.first?.sqlState == "23505" && ["10", "11"].contains(letters.first?.key), "\(letters)")
            var ids: [Int] = []
            for try await id in try await client.query(#"SELECT id FROM "SinkNote" ORDER BY id"#).decode(Int.self) { ids.append(id) }
            #expect(ids.filter { $0 >= 10 }.count == 4 && ids.contains(12) && ids.contains(20) && ids.contains(21), "\(ids)")
        }
    }

    /// A dead letter's `row_data` reads back, through `jsonb_populate_record` (the documented
    /// replay), as the row the batches' statements write — for every kind of value.
    @Test func deadLetterRowsReadBackAsTheirRows() async throws {
        let seed: UInt64 = 20
        var random = SeededRandom(state: seed)
        let directory = try TestDirectory()
        defer { directory.remove() }
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("records.realm"),
                                                objectTypes: [SinkRecord.self, SinkPlace.self, SinkNote.self, SinkTag.self])
        let realm = try await Realm.open(configuration: configuration)
        try await realm.asyncWrite {
            let note = realm.create(SinkNote.self, value: ["id": 1, "text": "n"])
            let tag = realm.create(SinkTag.self, value: ["label": "t"])
            for id in 0..<200 { realm.add(Self.record(id, note: id % 2 == 0 ? note : nil, tag: id % 3 == 0 ? tag : nil, using: &random)) }
        }
        let schema = realm.schema
        let mapping = TableMapping(try #require(schema["SinkRecord"]), schema: schema)
        let objects = realm.dynamicObjects("SinkRecord").map { (key: Realm.ObjectKey($0)!, object: $0.freeze()) }
        try await Self.withDatabase { client in
            for statement in mapping.creation(known: []) { try await client.query(statement) }
            for statement in mapping.upserts(objects, columns: mapping.columns) { try await client.query(statement) }
            try await client.query(#"CREATE TABLE replayed (LIKE "SinkRecord")"#)
            for (key, object) in objects {
                let json = DeadLetter.json(of: object, key: key, mapping: mapping)
                try await client.query(#"INSERT INTO replayed SELECT * FROM jsonb_populate_record(NULL::"SinkRecord", \#(json)::jsonb)"#)
            }
            let written = try await Self.rows(of: "SinkRecord", in: client)
            #expect(written.count == 200)
            #expect(try await Self.rows(of: "replayed", in: client) == written, "seed \(seed)")
        }
    }

    /// Errors waiting mends — here a serialization failure (SQLSTATE 40001) a trigger raises on
    /// every attempt — are retried past `deadLetterAfter`, never dead-lettered; once the cause
    /// goes, the commit is applied whole.
    @Test func transientErrorsAreRetriedWithoutDeadLetters() async throws {
        let metrics = TestMetrics()
        let slot = [("slot", "transient")]
        try await Self.withNotes(0..<5, "before") { configuration, realm, client in
            let sink = PostgresReplicationSink(configuration: configuration, slot: "transient", client: client, logger: Logger(label: "sink-tests"),
                                               deadLetterAfter: 1, metricsFactory: metrics)
            try await client.query("""
                CREATE FUNCTION conflict() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                  RAISE EXCEPTION 'could not serialize access' USING ERRCODE = '40001';
                END $$
                """)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await sink.run() }
                try await Self.waitUntil { await sink.appliedVersion > 0 }
                try await client.query(#"CREATE TRIGGER conflict BEFORE INSERT OR UPDATE ON "SinkNote" FOR EACH ROW EXECUTE FUNCTION conflict()"#)
                let target = try await Self.write(realm, notes: 3..<8, "after")
                try await Self.waitUntil { try metrics.expectCounter("realm.replication.errors", slot).totalValue >= 4 }
                #expect(await sink.appliedVersion < target)
                try await client.query(#"DROP TRIGGER conflict ON "SinkNote""#)
                try await Self.waitUntil { await sink.appliedVersion >= target }
                group.cancelAll()
            }
            try await Self.expectNoDeadLetters(metrics, slot: slot, client, realm)
        }
    }

    /// The sink's connection lost in the middle of its transaction — its backend terminated
    /// (SQLSTATE 57P01, as when PostgreSQL shuts down) while its INSERT waits on a lock, three
    /// times — is retried on a new connection, never dead-lettered, and the commit arrives.
    @Test func aLostConnectionIsRetriedWithoutDeadLetters() async throws {
        let metrics = TestMetrics()
        let slot = [("slot", "lost")]
        try await Self.withNotes(0..<5, "before") { configuration, realm, client in
            func sink() -> PostgresReplicationSink {
                PostgresReplicationSink(configuration: configuration, slot: "lost", client: client, logger: Logger(label: "sink-tests"),
                                        transactionTimeout: .seconds(5), deadLetterAfter: 1, metricsFactory: metrics)
            }
            try await Self.replicate(sink(), through: nil)
            let target = try await Self.write(realm, notes: 3..<8, "after")  // the sink stopped
            let sink = sink()
            try await withThrowingTaskGroup(of: Void.self) { group in
                try await client.withConnection { locker in
                    let logger = Logger(label: "sink-tests")
                    try await locker.query("BEGIN", logger: logger)
                    try await locker.query(#"LOCK TABLE "SinkNote" IN ACCESS EXCLUSIVE MODE"#, logger: logger)
                    group.addTask { try await sink.run() }
                    for attempt in 1...3 {
                        // The sink's INSERT waiting on the lock: terminate its backend.
                        try await Self.waitUntil {
                            try await client.query("""
                                SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
                                """).collect().count == 1
                        }
                        try await client.query("""
                            SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
                            """)
                        try await Self.waitUntil { try metrics.expectCounter("realm.replication.errors", slot).totalValue >= attempt }
                    }
                    #expect(await sink.appliedVersion < target)
                    try await locker.query("COMMIT", logger: logger)
                }
                try await Self.waitUntil { await sink.appliedVersion >= target }
                group.cancelAll()
            }
            try await Self.expectNoDeadLetters(metrics, slot: slot, client, realm)
        }
    }
}
