import Foundation
import Logging
import MetricsTestKit
import PostgresNIO
import RealmActors
@testable import RealmPostgres
import Testing

/// A resynchronization the operator asks for in the realm (`realm-inspect resync-slot`,
/// ``Realm/requestResynchronization(ofReplicationSlotNamed:)``): the sink, started as always —
/// without `resynchronize` — creates the slot again and loads a snapshot instead of stopping.
extension PostgresSinkTests {
    /// A slot a retention limit invalidated (the sink stops), then the request: the next start
    /// loads a snapshot of a new slot with the same limits, and no stop is counted for it.
    @Test func aRequestedResynchronizationRecoversAnInvalidatedSlot() async throws {
        let metrics = TestMetrics()
        let limits = Realm.ReplicationRetentionLimits(maximumRetainedBytes: 64 << 10)
        try await Self.withNotes(0..<200) { configuration, realm, client in
            func sink() -> PostgresReplicationSink { Self.sink(configuration, "asked", client, metrics: metrics, slotLimits: limits) }
            try await Self.replicate(sink(), through: nil)
            for commit in 0..<40 { try await Self.write(realm, notes: 0..<200, "rewritten \(commit)") }
            _ = realm.refresh()
            let invalidated = try #require(try realm.replicationSlots.first)
            #expect(invalidated.invalidation?.reason == .retainedBytes)
            #expect(await Self.stop(of: sink())?.reason == .slotInvalidated)

            try await realm.asyncWrite { try realm.requestResynchronization(ofReplicationSlotNamed: "asked") }
            _ = realm.refresh()
            #expect(try realm.replicationSlots.first?.invalidation?.reason == .resynchronizationRequested)
            try await Self.replicate(sink(), through: nil)
            _ = realm.refresh()
            let recreated = try #require(try realm.replicationSlots.first)
            #expect(recreated.invalidation == nil && recreated.id != invalidated.id && recreated.limits == limits)
            try await Self.expectEqual(client, realm)
            try await Self.replicate(sink(), through: try await Self.write(realm, notes: 190..<210, "after"))
            try await Self.expectEqual(client, realm)
            #expect(try Self.stops(metrics, slot: "asked", .slotInvalidated) == 1)
        }
    }

    /// PostgreSQL restored behind a valid slot (a postgresBehind stop), then the request; and a
    /// request made while the sink runs: the running sink loads the snapshot without stopping.
    @Test func aRequestedResynchronizationRecoversAStopAndIsHonouredWhileRunning() async throws {
        try await Self.withNotes(0..<30) { configuration, realm, client in
            func sink() -> PostgresReplicationSink { Self.sink(configuration, "behind", client, confirmEvery: 1) }
            try await Self.replicate(sink(), through: nil)
            try await Self.dump(client)
            try await Self.replicate(sink(), through: try await Self.write(realm, notes: 20..<40, "lost"))
            try await Self.restoreDump(client)
            #expect(await Self.stop(of: sink())?.reason == .postgresBehind)
            try await realm.asyncWrite { try realm.requestResynchronization(ofReplicationSlotNamed: "behind") }
            try await Self.replicate(sink(), through: nil)
            try await Self.expectEqual(client, realm)

            let running = sink()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await running.run() }
                try await Self.waitUntil { await running.appliedVersion > 0 }
                _ = realm.refresh()
                let before = try #require(try realm.replicationSlots.first)
                try await realm.asyncWrite { try realm.requestResynchronization(ofReplicationSlotNamed: "behind") }
                let target = try await Self.write(realm, notes: 35..<45, "after the request")
                try await Self.waitUntil {
                    _ = realm.refresh()
                    guard try realm.replicationSlots.first?.id != before.id else { return false }
                    return await running.appliedVersion >= target
                }
                try await Self.cancelAndDrain(&group)
            }
            try await Self.expectEqual(client, realm)
        }
    }
}
