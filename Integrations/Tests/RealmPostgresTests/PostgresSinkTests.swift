import Foundation
import Logging
import PostgresNIO
import RealmActors
@testable import RealmPostgres
import Testing

final class SinkNote: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = ""
}

/// The sink against a real PostgreSQL (Scripts/test-replication.sh starts one and sets
/// REALM_POSTGRES_*); skipped without one.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["REALM_POSTGRES_PORT"] != nil), .timeLimit(.minutes(2)))
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
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("PostgresSinkTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = Realm.Configuration(fileURL: directory.appendingPathComponent("notes.realm"), objectTypes: [SinkNote.self])
        let realm = try await Realm.open(configuration: configuration)
        let slot = "twice_\(UInt32.random(in: 0...UInt32.max))"
        try await realm.asyncWrite { try realm.createReplicationSlot(named: slot) }
        try await realm.asyncWrite { realm.create(SinkNote.self, value: ["id": 1, "text": "first"]) }
        try await realm.asyncWrite { realm.object(ofType: SinkNote.self, forPrimaryKey: 1)!.text = "second" }
        let client = Self.client()
        let logger = Logger(label: "sink-tests")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            let sink = PostgresReplicationSink(configuration: configuration, slot: slot, client: client, logger: logger)
            try await client.query("CREATE TABLE IF NOT EXISTS realm_replication_progress (slot text PRIMARY KEY, version bigint NOT NULL)")
            try await client.query("DROP TABLE IF EXISTS \"SinkNote\"")
            var commits: [Realm.Commit] = []
            for try await commit in realm.commits(since: slot) {
                commits.append(commit)
                if commits.count == 2 { break }
            }
            try await sink.apply(commits, schema: realm.schema)
            // The first again (a restart that re-reads it): the progress row says it is applied,
            // so the row keeps "second" rather than going back to "first".
            try await sink.apply([commits[0]], schema: realm.schema)
            let rows = try await client.query("SELECT text FROM \"SinkNote\" WHERE id = 1")
            var texts: [String] = []
            for try await text in rows.decode(String.self) { texts.append(text) }
            #expect(texts == ["second"])
            group.cancelAll()
        }
    }
}
