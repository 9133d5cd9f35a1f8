import Foundation
import Logging
import PostgresNIO
import RealmActors
@testable import RealmPostgres
import Testing

/// When the sink confirms its slot: every `confirmEvery` commits, at most once per
/// `confirmInterval`, a confirmation the interval deferred made once it has passed.
extension PostgresSinkTests {
    /// Runs a sink with `confirmEvery: 1` and `interval` over five commits made one at a time
    /// after its start, until it has applied them; then `body` with the realm and the five
    /// commits' versions, the sink still running.
    static func confirming(interval: Duration, _ body: (Realm, [UInt64]) async throws -> Void) async throws {
        try await withNotes { configuration, realm, client in
            let sink = PostgresReplicationSink(configuration: configuration, slot: "interval", client: client, logger: Logger(label: "sink-tests"),
                                               confirmEvery: 1, confirmInterval: interval)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await sink.run() }
                try await waitUntil { await sink.appliedVersion > 0 }  // the snapshot, and the slot, are there
                var versions: [UInt64] = []
                for id in 0..<5 {
                    let version = try await write(realm, notes: id..<(id + 1), "note")
                    try await waitUntil { await sink.appliedVersion >= version }
                    versions.append(version)
                }
                try await body(realm, versions)
                group.cancelAll()
            }
        }
    }

    /// The slot's position in `realm` now.
    static func confirmedVersion(_ realm: Realm) throws -> UInt64 {
        _ = realm.refresh()
        return try realm.replicationSlots.first { $0.name == "interval" }?.confirmedVersion ?? 0
    }

    /// Within the interval, the commits after the first confirmation wait: the slot stays at
    /// the first commit. (Confirming each batch in its path, the sink would have confirmed the
    /// fourth before applying the fifth.)
    @Test func confirmationsWaitForTheInterval() async throws {
        try await Self.confirming(interval: .seconds(3_600)) { realm, versions in
            let confirmed = try Self.confirmedVersion(realm)
            #expect(confirmed == versions[0])
        }
    }

    /// A confirmation the interval deferred is made once it has passed, though no commit comes.
    @Test func aDeferredConfirmationIsMadeWithoutANewCommit() async throws {
        try await Self.confirming(interval: .milliseconds(200)) { realm, versions in
            try await Self.waitUntil { try Self.confirmedVersion(realm) >= versions[4] }
        }
    }
}
