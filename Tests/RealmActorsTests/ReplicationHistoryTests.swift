import Foundation
import Synchronization
import Testing
import RealmActors
import RealmTestSupport

/// Replication at the boundaries a consumer meets in production: a slot added to a realm that
/// already has data (the initial snapshot), a position from another history (the realm replaced
/// by an older copy, the consumer's store restored to an older state, the slot dropped and created
/// again), and a consumer that is gone (retention limits). Each ends either with the consumer
/// holding exactly the realm, or with a loud, specific error — never a silent skip.
@Suite(.timeLimit(.minutes(2))) struct ReplicationHistoryTests {
    static func configuration(_ directory: TemporaryDirectory, name: String = "history.realm",
                              instrumentation: Realm.Instrumentation? = nil) -> Realm.Configuration {
        var configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent(name),
                                                objectTypes: [ReplicatedOrder.self, ReplicatedEvent.self])
        configuration.instrumentation = instrumentation
        return configuration
    }

    /// A consumer's copy: the snapshot's orders, then each commit applied.
    struct Replica {
        var orders: [String: Int] = [:]
        var position: Realm.ReplicationPosition?

        mutating func load(_ snapshot: Realm.ReplicationSnapshot) {
            for order in snapshot.realm.objects(ReplicatedOrder.self) { orders[order.code] = order.quantity }
            position = snapshot.position
        }

        mutating func apply(_ commit: Realm.Commit) {
            for changes in commit.changes where changes.className == "ReplicatedOrder" {
                for change in changes.inserted + changes.modified {
                    guard case .string(let code) = change.key else { continue }
                    orders[code] = change.object.read { $0["quantity"] as? Int }
                }
                for key in changes.deleted { if case .string(let code) = key { orders[code] = nil } }
            }
            position = commit.position
        }
    }

    static func orders(_ realm: Realm) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: realm.objects(ReplicatedOrder.self).map { ($0.code, $0.quantity) })
    }

    /// Applies the commits after the replica's position until none is left at the handle's version.
    static func catchUp(_ replica: inout Replica, _ realm: Realm) async throws {
        var commits = realm.commits(after: try #require(replica.position)).makeAsyncIterator()
        while try realm.replicationBacklog(after: try #require(replica.position).version).commits > 0 {
            replica.apply(try #require(try await commits.next()))
        }
    }

    /// A slot added to a realm with data: the snapshot holds every object that existed, the
    /// commits after it the rest — and objects edited after the slot replicate whole, not as a
    /// row of the changed columns only.
    @Test func aSlotOnARealmWithDataStartsFromASnapshot() async throws {
        let directory = try TemporaryDirectory()
        let realm = try await Realm.open(configuration: Self.configuration(directory))
        try await realm.asyncWrite {
            for index in 0..<1_000 { realm.create(ReplicatedOrder.self, value: ["code": "o\(index)", "quantity": index]) }
        }
        try await realm.asyncWrite { try realm.createReplicationSlot(named: "sink") }
        try await realm.asyncWrite {
            for index in 1_000..<1_100 { realm.create(ReplicatedOrder.self, value: ["code": "o\(index)", "quantity": index]) }
            realm.object(ofType: ReplicatedOrder.self, forPrimaryKey: "o7")!.quantity = -7
            realm.delete(realm.object(ofType: ReplicatedOrder.self, forPrimaryKey: "o8")!)
        }
        let snapshot = try realm.replicationSnapshot(forSlot: "sink")
        #expect(snapshot.position == (try realm.replicationSlots.first?.position))
        #expect(snapshot.slotID == (try realm.replicationSlots.first?.id))
        #expect(snapshot.realm.objects(ReplicatedOrder.self).count == 1_000)
        // Commits made while the snapshot is loaded do not change it.
        try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "late", "quantity": 1]) }
        var replica = Replica()
        replica.load(snapshot)
        #expect(replica.orders.count == 1_000 && replica.orders["o7"] == 7)
        try await Self.catchUp(&replica, realm)
        #expect(replica.orders == Self.orders(realm))
        #expect(replica.orders.count == 1_100)
    }

    /// A copy of the file taken with `cp`, restored after the original made commits the consumer
    /// applied, then written to: the consumer's position is not in the restored file's history,
    /// and resuming from it throws instead of skipping or mixing commits.
    @Test func aRealmReplacedByAnOlderCopyRefusesTheConsumersPosition() async throws {
        let directory = try TemporaryDirectory()
        let url = Self.configuration(directory).fileURL!
        let backup = directory.url.appendingPathComponent("backup.realm")
        var replica = Replica()
        do {
            let realm = try Realm(configuration: Self.configuration(directory))
            try realm.write { try realm.createReplicationSlot(named: "sink") }
            try realm.write { realm.create(ReplicatedOrder.self, value: ["code": "kept", "quantity": 1]) }
            replica.load(try realm.replicationSnapshot(forSlot: "sink"))
        }
        try FileManager.default.copyItem(at: url, to: backup)  // closed: a consistent copy
        do {
            let realm = try Realm(configuration: Self.configuration(directory))
            for index in 0..<3 { try realm.write { realm.create(ReplicatedOrder.self, value: ["code": "lost\(index)", "quantity": index]) } }
            try await Self.catchUp(&replica, realm)
            #expect(replica.orders.keys.contains("lost2"))
        }
        let lostPosition = try #require(replica.position)
        try FileManager.default.removeItem(at: url)
        try FileManager.default.copyItem(at: backup, to: url)
        let realm = try Realm(configuration: Self.configuration(directory))
        // The restored file makes new commits, under the numbers the lost ones had.
        for index in 0..<3 { try realm.write { realm.create(ReplicatedOrder.self, value: ["code": "new\(index)", "quantity": index]) } }
        #expect(try realm.replicationPositionStatus(lostPosition) != .retained)
        await #expect { () async throws in
            var commits = realm.commits(after: lostPosition).makeAsyncIterator()
            _ = try await commits.next()
        } throws: { ($0 as? Realm.Error)?.code == .replicationPositionLost }
    }

    /// The same version number made by two commits — the original's and a restored copy's —
    /// is told apart by the commit id.
    @Test func aVersionMadeByAnotherCommitIsAnotherHistory() async throws {
        let directory = try TemporaryDirectory()
        let url = Self.configuration(directory).fileURL!
        let backup = directory.url.appendingPathComponent("backup.realm")
        do {
            let realm = try Realm(configuration: Self.configuration(directory))
            try realm.write { try realm.createReplicationSlot(named: "sink") }
        }
        try FileManager.default.copyItem(at: url, to: backup)
        let original: Realm.ReplicationPosition
        do {
            let realm = try Realm(configuration: Self.configuration(directory))
            try realm.write { realm.create(ReplicatedOrder.self, value: ["code": "a"]) }
            var commits = realm.commits(since: "sink").makeAsyncIterator()
            original = try #require(try await commits.next()).position
            #expect(try realm.replicationPositionStatus(original) == .retained)
        }
        try FileManager.default.removeItem(at: url)
        try FileManager.default.copyItem(at: backup, to: url)
        let realm = try Realm(configuration: Self.configuration(directory))
        try realm.write { realm.create(ReplicatedOrder.self, value: ["code": "b"]) }
        var commits = realm.commits(since: "sink").makeAsyncIterator()
        let restored = try #require(try await commits.next()).position
        // Both files opened once after the copy and wrote one commit: the same number.
        #expect(restored.version == original.version)
        #expect(restored.commitID != original.commitID)
        #expect(try realm.replicationPositionStatus(original) == .otherHistory)
        #expect(try realm.replicationPositionStatus(restored) == .retained)
    }

    /// The consumer's store restored to an older state (behind the slot, which has freed what it
    /// confirmed): not retained, and said so. A version newer than the realm's is refused too.
    @Test func aPositionBehindTheSlotIsNotRetained() async throws {
        let directory = try TemporaryDirectory()
        let realm = try await Realm.open(configuration: Self.configuration(directory))
        try await realm.asyncWrite { try realm.createReplicationSlot(named: "sink") }
        var positions: [Realm.ReplicationPosition] = []
        var commits = realm.commits(since: "sink").makeAsyncIterator()
        for index in 0..<4 {
            try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "o\(index)"]) }
            positions.append(try #require(try await commits.next()).position)
        }
        #expect(try positions.map { try realm.replicationPositionStatus($0) } == Array(repeating: .retained, count: 4))
        try await realm.asyncWrite { try realm.confirmReplicationSlot(named: "sink", through: positions[2].version) }
        try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "frees"]) }
        #expect(try realm.replicationPositionStatus(positions[0]) == .notRetained)
        #expect(try realm.replicationPositionStatus(positions[2]) == .retained)  // the slot's position
        #expect(try realm.replicationSlots.first?.position == positions[2])
        for start in [realm.commits(after: positions[0]), realm.commits(after: positions[0].version),
                      realm.commits(after: realm.fileStatistics.version + 1)] {
            await #expect { () async throws in
                var iterator = start.makeAsyncIterator()
                _ = try await iterator.next()
            } throws: { ($0 as? Realm.Error)?.code == .replicationPositionLost }
        }
        var resumed = realm.commits(after: positions[2]).makeAsyncIterator()
        #expect(try await resumed.next()?.position == positions[3])
    }

    /// A consumer that read commits and is gone leaves nothing holding the file: it closes
    /// (its files can be deleted, a backup restored under its path is read anew). The consumer's
    /// wake-up signal was held by the file's observers, and held the file, so the file stayed
    /// open for the rest of the process.
    @Test func aConsumerThatIsGoneLeavesTheFileClosed() async throws {
        let directory = try TemporaryDirectory()
        let configuration = Self.configuration(directory)
        do {
            let realm = try await Realm.open(configuration: configuration)
            try await realm.asyncWrite { try realm.createReplicationSlot(named: "sink") }
            try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "a"]) }
            var commits = realm.commits(since: "sink").makeAsyncIterator()
            #expect(try await commits.next() != nil)
        }
        #expect(try Realm.deleteFiles(for: configuration))
    }

    /// A slot dropped and created again under its name is another slot: another id, and the
    /// old slot's position is not its position.
    @Test func aSlotCreatedAgainHasAnotherIdentity() async throws {
        let directory = try TemporaryDirectory()
        let realm = try await Realm.open(configuration: Self.configuration(directory))
        try await realm.asyncWrite { try realm.createReplicationSlot(named: "sink") }
        let first = try #require(try realm.replicationSlots.first)
        try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "a"]) }
        try await realm.asyncWrite { try realm.dropReplicationSlot(named: "sink") }
        try await realm.asyncWrite { try realm.createReplicationSlot(named: "sink") }
        let second = try #require(try realm.replicationSlots.first)
        #expect(second.id != first.id)
        #expect(second.position != first.position)
        #expect(try realm.replicationPositionStatus(first.position) == .notRetained)
        #expect(try realm.replicationPositionStatus(second.position) == .retained)
    }

    /// A consumer that is gone: past its byte limit the slot is invalidated by a commit, the
    /// event fires, its consumer is refused with the reason, the space it held is reused, and
    /// another slot is untouched.
    @Test func aSlotPastItsRetainedBytesIsInvalidated() async throws {
        let directory = try TemporaryDirectory()
        let events = Mutex<[(String, Realm.ReplicationSlotInvalidation)]>([])
        let instrumentation = Realm.Instrumentation { event in
            if case .replicationSlotInvalidated(let slot, let invalidation) = event { events.withLock { $0.append((slot, invalidation)) } }
        }
        let realm = try await Realm.open(configuration: Self.configuration(directory, instrumentation: instrumentation))
        try await realm.asyncWrite {
            try realm.createReplicationSlot(named: "bounded", limits: .init(maximumRetainedBytes: 256 * 1024))
            try realm.createReplicationSlot(named: "unbounded")
        }
        var keeper = realm.commits(since: "unbounded").makeAsyncIterator()
        var commits = 0
        while try realm.replicationSlots.first(where: { $0.name == "bounded" })?.invalidation == nil {
            try await realm.asyncWrite {
                for index in 0..<20 { realm.create(ReplicatedOrder.self, value: ["code": "c\(commits)-\(index)", "quantity": index]) }
                realm.objects(ReplicatedOrder.self).first.map { $0.quantity += 1 }
            }
            commits += 1
            // The other slot's consumer keeps up and confirms.
            let commit = try #require(try await keeper.next())
            try await realm.asyncWrite { try realm.confirmReplicationSlot(named: "unbounded", through: commit.version) }
            try #require(commits < 2_000, "the slot was never invalidated")
        }
        let bounded = try #require(try realm.replicationSlots.first { $0.name == "bounded" })
        #expect(bounded.invalidation?.reason == .retainedBytes)
        #expect(bounded.limits.maximumRetainedBytes == 256 * 1024)
        #expect(bounded.retainedBytes == 0)
        #expect(events.withLock { $0.map(\.0) } == ["bounded"])
        await #expect { () async throws in
            var iterator = realm.commits(since: "bounded").makeAsyncIterator()
            _ = try await iterator.next()
        } throws: { ($0 as? Realm.Error)?.code == .replicationSlotInvalidated }
        #expect { try realm.replicationSnapshot(forSlot: "bounded") } throws: { ($0 as? Realm.Error)?.code == .replicationSlotInvalidated }
        // Nothing holds the old versions any more: the next commits reuse their pages.
        try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "after"]) }
        #expect(realm.fileStatistics.retainedBytes < 256 * 1024)
        // The other slot goes on.
        try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "still"]) }
        #expect(try await keeper.next()?.changes.first?.inserted.first?.key == .string("after"))
        // An invalidated slot holds nothing back from now on: commits leave no records for it.
        var keeperCommit = try #require(try await keeper.next())
        try await realm.asyncWrite { try realm.confirmReplicationSlot(named: "unbounded", through: keeperCommit.version) }
        for index in 0..<20 {
            try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "more\(index)"]) }
            keeperCommit = try #require(try await keeper.next())
            try await realm.asyncWrite { try realm.confirmReplicationSlot(named: "unbounded", through: keeperCommit.version) }
        }
        try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "last"]) }
        #expect(try realm.replicationSlots.first { $0.name == "unbounded" }?.backlog.commits == 1)
        #expect(realm.fileStatistics.retainedBytes <= (try realm.replicationSlots.first { $0.name == "unbounded" }?.retainedBytes ?? 0))
        // A confirmation of the invalidated slot changes nothing.
        try await realm.asyncWrite { try realm.confirmReplicationSlot(named: "bounded", through: realm.fileStatistics.version) }
        #expect(try realm.replicationSlots.first { $0.name == "bounded" }?.invalidation != nil)
    }

    /// Creates the realm's only slot, `gone`, with a 64 KiB limit, and commits objects until a
    /// commit invalidates it; no commit follows that one.
    static func writeUntilTheOnlySlotIsInvalidated(_ realm: Realm) throws {
        try realm.write { try realm.createReplicationSlot(named: "gone", limits: .init(maximumRetainedBytes: 64 * 1024)) }
        var index = 0
        while try realm.replicationSlots.first?.invalidation == nil {
            try realm.write {
                for _ in 0..<50 { realm.create(ReplicatedOrder.self, value: ["code": "o\(index)", "note": String(repeating: "x", count: 200)]); index += 1 }
            }
            try #require(index < 100_000, "the slot was never invalidated")
        }
    }

    /// A file whose only slot was invalidated retains nothing, so it compacts on launch (a valid
    /// slot's file does not); the slot survives the compaction, still invalidated, and its
    /// consumer is still refused with the reason.
    @Test func aFileWhoseSlotWasInvalidatedCompacts() async throws {
        let directory = try TemporaryDirectory()
        var configuration = Self.configuration(directory)
        do {
            let realm = try Realm(configuration: configuration)
            try Self.writeUntilTheOnlySlotIsInvalidated(realm)
            try realm.write { realm.delete(realm.objects(ReplicatedOrder.self)) }
        }
        let before = try #require(try FileManager.default.attributesOfItem(atPath: configuration.fileURL!.path)[.size] as? Int)
        let asked = Mutex(false)
        configuration.shouldCompactOnLaunch = { _, _ in asked.withLock { $0 = true }; return true }
        let realm = try Realm(configuration: configuration)
        #expect(asked.withLock { $0 })
        let after = try #require(try FileManager.default.attributesOfItem(atPath: configuration.fileURL!.path)[.size] as? Int)
        #expect(after < before)
        let slot = try #require(try realm.replicationSlots.first)
        #expect(slot.name == "gone" && slot.invalidation?.reason == .retainedBytes)
        await #expect { () async throws in
            var iterator = realm.commits(since: "gone").makeAsyncIterator()
            _ = try await iterator.next()
        } throws: { ($0 as? Realm.Error)?.code == .replicationSlotInvalidated }
        _ = try realm.checkIntegrity()
    }

    /// An operator's request for a resynchronization: the slot is invalidated with that reason
    /// (kept across a reopen), retains nothing from then on, refuses its consumer, fires no
    /// instrumentation event (no limit was passed), and leaves another slot alone; asking again
    /// changes nothing, and a missing slot is invalid input.
    @Test func aRequestedResynchronizationInvalidatesTheSlot() async throws {
        let directory = try TemporaryDirectory()
        let events = Mutex(0)
        let instrumentation = Realm.Instrumentation { event in
            if case .replicationSlotInvalidated = event { events.withLock { $0 += 1 } }
        }
        let configuration = Self.configuration(directory, instrumentation: instrumentation)
        do {
            let realm = try await Realm.open(configuration: configuration)
            try await realm.asyncWrite {
                try realm.createReplicationSlot(named: "asked")
                try realm.createReplicationSlot(named: "other")
            }
            for index in 0..<10 {
                try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "o\(index)", "quantity": index], update: .modified) }
            }
            let before = try #require(try realm.replicationSlots.first { $0.name == "asked" })
            #expect(before.backlog.commits == 10 && before.invalidation == nil)
            try await realm.asyncWrite { try realm.requestResynchronization(ofReplicationSlotNamed: "asked") }
            let asked = try #require(try realm.replicationSlots.first { $0.name == "asked" })
            #expect(asked.invalidation?.reason == .resynchronizationRequested)
            #expect(asked.retainedBytes == 0 && asked.position.version > before.position.version)
            let date = try #require(asked.invalidation?.date)
            try await realm.asyncWrite { try realm.requestResynchronization(ofReplicationSlotNamed: "asked") }
            #expect(try realm.replicationSlots.first { $0.name == "asked" }?.invalidation?.date == date)
            #expect(try realm.replicationSlots.first { $0.name == "other" }?.backlog.commits == 10)
            await #expect { () async throws in
                try await realm.asyncWrite { try realm.requestResynchronization(ofReplicationSlotNamed: "missing") }
            } throws: { ($0 as? Realm.Error)?.code == .invalidInput }
        }
        let realm = try await Realm.open(configuration: configuration)
        #expect(try realm.replicationSlots.first { $0.name == "asked" }?.invalidation?.reason == .resynchronizationRequested)
        await #expect { () async throws in
            var iterator = realm.commits(since: "asked").makeAsyncIterator()
            _ = try await iterator.next()
        } throws: { ($0 as? Realm.Error)?.code == .replicationSlotInvalidated && "\($0)".contains("resynchronization") }
        #expect(try realm.replicationSlots.first { $0.name == "other" }?.backlog.commits == 10)
        #expect(events.withLock { $0 } == 0)
        _ = try realm.checkIntegrity()
    }

    /// The commit that invalidates the file's last valid slot keeps no record either: the file
    /// retains nothing from that commit on, so it compacts on launch even when no commit
    /// followed (the process stopped, or was killed, right after). Found by the torture
    /// harness's `retention` workload: a record left by that commit retained its pages, and
    /// kept the file from compacting, until the next commit.
    @Test func theCommitThatInvalidatesTheLastSlotRetainsNothing() async throws {
        let directory = try TemporaryDirectory()
        var configuration = Self.configuration(directory)
        do {
            let realm = try Realm(configuration: configuration)
            try Self.writeUntilTheOnlySlotIsInvalidated(realm)
            #expect(realm.fileStatistics.retainedBytes == 0)
        }
        let compactions = Mutex(0)
        configuration.shouldCompactOnLaunch = { _, _ in true }
        configuration.instrumentation = Realm.Instrumentation { event in
            if case .compacted = event { compactions.withLock { $0 += 1 } }
        }
        let realm = try Realm(configuration: configuration)
        #expect(compactions.withLock { $0 } == 1)
        #expect(realm.fileStatistics.retainedBytes == 0)
        #expect(try realm.replicationSlots.first?.invalidation?.reason == .retainedBytes)
        _ = try realm.checkIntegrity()
    }

    /// A lag limit: the first commit after the oldest unconfirmed one is older than the limit
    /// invalidates the slot (1 ns: any later commit).
    @Test func aSlotPastItsLagIsInvalidated() async throws {
        let directory = try TemporaryDirectory()
        let realm = try await Realm.open(configuration: Self.configuration(directory))
        try await realm.asyncWrite { try realm.createReplicationSlot(named: "sink", limits: .init(maximumLag: .nanoseconds(1))) }
        try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "a"]) }
        #expect(try realm.replicationSlots.first?.invalidation == nil)
        try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "b"]) }
        let slot = try #require(try realm.replicationSlots.first)
        #expect(slot.invalidation?.reason == .lag)
        #expect(slot.limits.maximumLag == .nanoseconds(1))
        #expect(try realm.replicationSlots.first?.invalidation?.date ?? .distantPast > Date().addingTimeInterval(-60))
        // Limits must be positive.
        for limits in [Realm.ReplicationRetentionLimits(maximumRetainedBytes: 0), .init(maximumLag: .zero)] {
            await #expect { () async throws in
                try await realm.asyncWrite { try realm.createReplicationSlot(named: "bad", limits: limits) }
            } throws: { ($0 as? Realm.Error)?.code == .invalidInput }
        }
    }
}
