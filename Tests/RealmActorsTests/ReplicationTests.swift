import Foundation
import Testing
import RealmActors
import RealmTestSupport

final class ReplicatedOrder: Object {
    @Persisted(primaryKey: true) var code = ""
    @Persisted var quantity = 0
    @Persisted var note = ""
}

final class ReplicatedEvent: Object {
    @Persisted var name = ""
}

final class ReplicatedGeo: EmbeddedObject {
    @Persisted var lat = 0.0
}

final class ReplicatedAddress: EmbeddedObject {
    @Persisted var city = ""
    @Persisted var geo: ReplicatedGeo?
}

final class ReplicatedCustomer: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var address: ReplicatedAddress?
    @Persisted var previous: List<ReplicatedAddress>
    @Persisted var lastEvent: ReplicatedEvent?
}

/// Replication through the public API: slots, `commits(since:)` as a consumer reads it (what each
/// commit inserted, modified and deleted, by primary key or object key), resuming after a
/// confirmation across a close and reopen, waiting for new commits, and many writers at once.
@Suite(.timeLimit(.minutes(2))) struct ReplicationTests {
    static func configuration(_ directory: TemporaryDirectory) -> Realm.Configuration {
        Realm.Configuration(fileURL: directory.url.appendingPathComponent("replicated.realm"),
                            objectTypes: [ReplicatedOrder.self, ReplicatedEvent.self])
    }

    @Test func slotsAreCreatedListedAndDropped() async throws {
        let directory = try TemporaryDirectory()
        let realm = try await Realm.open(configuration: Self.configuration(directory))
        #expect(try realm.replicationSlots.isEmpty)
        try await realm.asyncWrite { try realm.createReplicationSlot(named: "warehouse") }
        let slots = try realm.replicationSlots
        #expect(slots.map(\.name) == ["warehouse"])
        #expect(realm.fileStatistics.formatVersion == 9)
        await #expect(throws: Realm.Error.self) { try await realm.asyncWrite { try realm.createReplicationSlot(named: "warehouse") } }
        await #expect(throws: Realm.Error.self) { try await realm.asyncWrite { try realm.createReplicationSlot(named: "no spaces") } }
        await #expect(throws: Realm.Error.self) { try await realm.asyncWrite { try realm.dropReplicationSlot(named: "missing") } }
        try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "a", "quantity": 1]) }
        #expect(realm.fileStatistics.retainedBytes > 0 || realm.fileStatistics.version > slots[0].confirmedVersion)
        try await realm.asyncWrite { try realm.dropReplicationSlot(named: "warehouse") }
        try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "b"]) }
        #expect(try realm.replicationSlots.isEmpty)
        #expect(realm.fileStatistics.retainedBytes == 0)
        #expect(realm.fileStatistics.formatVersion == 8)
    }

    /// A slot's backlog: the commits after its position (not those that changed nothing) and
    /// when the oldest was made; a second, further-along slot counts only its own; confirming
    /// shrinks it; a write transaction sees the same.
    @Test func aSlotsBacklogIsItsUnconfirmedCommits() async throws {
        let directory = try TemporaryDirectory()
        let realm = try await Realm.open(configuration: Self.configuration(directory))
        try await realm.asyncWrite { try realm.createReplicationSlot(named: "slow") }
        #expect(try realm.replicationSlots.map(\.backlog.commits) == [0])
        #expect(try realm.replicationSlots[0].backlog.oldestCommitTime == nil)
        let before = Date.now
        for quantity in 1...3 {
            try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "o\(quantity)", "quantity": quantity]) }
        }
        let afterThree = Date.now
        try await realm.asyncWrite { try realm.createReplicationSlot(named: "fast") }
        try await realm.asyncWrite { _ = realm.objects(ReplicatedOrder.self).count }  // changes nothing
        try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "o4"]) }
        var slots = try realm.replicationSlots.sorted { $0.name > $1.name }
        #expect(slots.map(\.name) == ["slow", "fast"])
        #expect(slots.map(\.backlog.commits) == [4, 1])
        let oldest = try #require(slots[0].backlog.oldestCommitTime)
        #expect(oldest >= before.addingTimeInterval(-0.001) && oldest <= afterThree)
        #expect(try #require(slots[1].backlog.oldestCommitTime) >= afterThree.addingTimeInterval(-0.001))

        // Confirm the slow slot through the second commit: two left, the third the oldest.
        var versions: [UInt64] = []
        for try await commit in realm.commits(since: "slow") {
            versions.append(commit.version)
            if versions.count == 4 { break }
        }
        try await realm.asyncWrite { try realm.confirmReplicationSlot(named: "slow", through: versions[1]) }
        slots = try realm.replicationSlots.sorted { $0.name > $1.name }
        #expect(slots.map(\.backlog.commits) == [2, 1])
        // A consumer that applied more than it confirmed: its own backlog.
        #expect(try realm.replicationBacklog(after: versions[2]).commits == 1)
        let none = try realm.replicationBacklog(after: versions[3])
        #expect(none.commits == 0 && none.oldestCommitTime == nil)
        #expect(try realm.replicationBacklog(after: versions[2]).lag(at: .distantFuture) > 1e9)
        try await realm.asyncWrite {
            // Inside a write transaction: as of its start.
            #expect(try realm.replicationSlots.sorted { $0.name > $1.name }.map(\.backlog.commits) == [2, 1])
            try realm.confirmReplicationSlot(named: "slow", through: versions[3])
            try realm.confirmReplicationSlot(named: "fast", through: versions[3])
        }
        slots = try realm.replicationSlots
        #expect(slots.map(\.backlog.commits) == [0, 0])
        #expect(slots.allSatisfy { $0.backlog.oldestCommitTime == nil && $0.backlog.lag() == 0 })
    }

    @Test func commitsTellWhatEachCommitChanged() async throws {
        let directory = try TemporaryDirectory()
        let realm = try await Realm.open(configuration: Self.configuration(directory))
        try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "before", "quantity": 1]) }
        try await realm.asyncWrite { try realm.createReplicationSlot(named: "sink") }
        try await realm.asyncWrite {
            realm.create(ReplicatedOrder.self, value: ["code": "a", "quantity": 2, "note": "new"])
            realm.create(ReplicatedEvent.self, value: ["name": "placed"])
        }
        try await realm.asyncWrite {
            realm.object(ofType: ReplicatedOrder.self, forPrimaryKey: "before")!.quantity = 5
            realm.delete(realm.objects(ReplicatedEvent.self))
        }
        try await realm.asyncWrite { realm.delete(realm.object(ofType: ReplicatedOrder.self, forPrimaryKey: "a")!) }

        // The slot's own commit changed no objects: it is not one to apply.
        let position = try #require(try realm.replicationSlots.first?.confirmedVersion)
        var commits = realm.commits(since: "sink").makeAsyncIterator()
        let first = try #require(try await commits.next())
        #expect(first.previousVersion > position)
        let orders = try #require(first.changes.first { $0.className == "ReplicatedOrder" })
        #expect(orders.inserted.map(\.key) == [.string("a")])
        #expect(Set(orders.inserted[0].changedProperties) == ["code", "quantity", "note"])
        #expect(orders.inserted[0].object.read { $0["note"] as? String } == "new")
        let events = try #require(first.changes.first { $0.className == "ReplicatedEvent" })
        guard case .objectKey(let eventKey) = try #require(events.inserted.first?.key) else {
            Issue.record("a class without a primary key is replicated by object key"); return
        }

        let second = try #require(try await commits.next())
        let modified = try #require(second.changes.first { $0.className == "ReplicatedOrder" })
        #expect(modified.modified.map(\.key) == [.string("before")])
        #expect(modified.modified[0].changedProperties == ["quantity"])
        #expect(modified.modified[0].object.read { $0["quantity"] as? Int } == 5)
        #expect(second.changes.first { $0.className == "ReplicatedEvent" }?.deleted == [.objectKey(eventKey)])

        let third = try #require(try await commits.next())
        #expect(third.changes.first?.deleted == [.string("a")])
        #expect(third.realm.objects(ReplicatedOrder.self).map(\.code) == ["before"])
        #expect(third.commitTime <= Date() && third.commitTime > Date().addingTimeInterval(-60))
    }

    /// A consumer that confirmed a commit and stopped resumes after it, in a new open of the file;
    /// commits it confirmed are gone, the rest are still there.
    @Test func aConsumerResumesAfterItsConfirmationAcrossReopens() async throws {
        let directory = try TemporaryDirectory()
        var confirmed: UInt64 = 0
        do {
            let realm = try await Realm.open(configuration: Self.configuration(directory))
            try await realm.asyncWrite { try realm.createReplicationSlot(named: "sink") }
            for index in 0..<6 {
                try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "o\(index)", "quantity": index]) }
            }
            var commits = realm.commits(since: "sink").makeAsyncIterator()
            for _ in 0..<3 { confirmed = try #require(try await commits.next()).version }
            try await realm.asyncWrite { try realm.confirmReplicationSlot(named: "sink", through: confirmed) }
            #expect(try realm.replicationSlots.first?.confirmedVersion == confirmed)
        }
        let realm = try await Realm.open(configuration: Self.configuration(directory))
        try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "after-reopen"]) }
        var commits = realm.commits(since: "sink").makeAsyncIterator()
        var codes: [String] = []
        for _ in 0..<4 {
            let commit = try #require(try await commits.next())
            #expect(commit.version > confirmed)
            codes += commit.changes.flatMap(\.inserted).compactMap { change -> String? in
                if case .string(let code) = change.key { return code }
                return nil
            }
        }
        // The confirmation's own commit is not among them.
        #expect(codes == ["o3", "o4", "o5", "after-reopen"])
        await #expect(throws: Realm.Error.self) {
            var iterator = realm.commits(since: "missing").makeAsyncIterator()
            _ = try await iterator.next()
        }
    }

    /// Batches hold the commits already made, up to the maximum, in order; one commit at a time
    /// gives the same commits.
    @Test func batchesHoldTheCommitsAlreadyMade() async throws {
        let directory = try TemporaryDirectory()
        let realm = try await Realm.open(configuration: Self.configuration(directory))
        try await realm.asyncWrite { try realm.createReplicationSlot(named: "sink") }
        for index in 0..<10 {
            try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": "b\(index)"]) }
        }
        var batches = realm.commits(since: "sink").batched(maximumCount: 4).makeAsyncIterator()
        var sizes: [Int] = []
        var versions: [UInt64] = []
        while sizes.reduce(0, +) < 10, let batch = try await batches.next() {
            sizes.append(batch.count)
            versions += batch.map(\.version)
        }
        #expect(sizes == [4, 4, 2])
        var single: [UInt64] = []
        for try await commit in realm.commits(since: "sink") {
            single.append(commit.version)
            if single.count == 10 { break }
        }
        #expect(versions == single)
    }

    /// Iterating waits for commits not made yet, and ends when the task is cancelled.
    @Test func theSequenceWaitsForNewCommitsAndEndsOnCancellation() async throws {
        let directory = try TemporaryDirectory()
        let realm = try await Realm.open(configuration: Self.configuration(directory))
        try await realm.asyncWrite { try realm.createReplicationSlot(named: "sink") }
        let configuration = Self.configuration(directory)
        let consumer = Task {
            let reader = try await Realm.open(configuration: configuration)
            var seen: [String] = []
            for try await commit in reader.commits(since: "sink") {
                seen += commit.changes.flatMap(\.inserted).compactMap { if case .string(let code) = $0.key { code } else { nil } }
                if seen.count == 3 { break }
            }
            return seen
        }
        for code in ["x", "y", "z"] {
            try await realm.asyncWrite { realm.create(ReplicatedOrder.self, value: ["code": code]) }
        }
        #expect(try await consumer.value == ["x", "y", "z"])

        // A consumer that has read everything waits; cancelling its task ends its loop.
        let (progress, reported) = AsyncStream.makeStream(of: Int.self)
        let waiting = Task {
            let reader = try await Realm.open(configuration: configuration)
            var count = 0
            for try await _ in reader.commits(since: "sink") {
                count += 1
                reported.yield(count)
            }
            return count
        }
        for await count in progress where count == 3 { break }  // x, y, z
        waiting.cancel()
        #expect(try await waiting.value == 3)
    }

    /// Eight writers at once, a consumer reading behind them: every commit once, in order, and
    /// replaying the change sets gives the realm's final content.
    @Test(arguments: [1, 2] as [UInt64])
    func manyWritersOneConsumer(seed: UInt64) async throws {
        let directory = try TemporaryDirectory()
        let configuration = Self.configuration(directory)
        let realm = try await Realm.open(configuration: configuration)
        try await realm.asyncWrite { try realm.createReplicationSlot(named: "sink") }
        let commitsPerWriter = 40
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    let handle = try await Realm.open(configuration: configuration)
                    var random = SplitMix64(seed: seed &* 100 &+ UInt64(writer))
                    for index in 0..<commitsPerWriter {
                        try await handle.asyncWrite {
                            let code = "w\(writer)-\(Int.random(in: 0..<15, using: &random))"
                            if let existing = handle.object(ofType: ReplicatedOrder.self, forPrimaryKey: code), Bool.random(using: &random) {
                                handle.delete(existing)
                            } else {
                                handle.create(ReplicatedOrder.self, value: ["code": code, "quantity": index], update: .modified)
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        var replica: [String: Int] = [:]
        var previous: UInt64 = 0
        var count = 0
        let newest = realm.fileStatistics.version
        for try await commit in realm.commits(since: "sink") {
            #expect(commit.version > previous)
            previous = commit.version
            count += 1
            for changes in commit.changes where changes.className == "ReplicatedOrder" {
                for change in changes.inserted + changes.modified {
                    guard case .string(let code) = change.key else { continue }
                    replica[code] = change.object.read { $0["quantity"] as? Int }
                }
                for key in changes.deleted {
                    if case .string(let code) = key { replica[code] = nil }
                }
            }
            if commit.version >= newest { break }
        }
        #expect(count == 8 * commitsPerWriter)
        realm.refresh()
        let actual = Dictionary(uniqueKeysWithValues: realm.objects(ReplicatedOrder.self).map { ($0.code, $0.quantity) })
        #expect(replica == actual)
    }

    /// Embedded objects are not replicated on their own: a change to one, however deep, is a
    /// modification of the top-level object it lives in, in the property that leads to it.
    @Test func anEmbeddedObjectsChangeIsItsOwnersModification() async throws {
        let directory = try TemporaryDirectory()
        var configuration = Self.configuration(directory)
        configuration.objectTypes = [ReplicatedCustomer.self, ReplicatedAddress.self, ReplicatedGeo.self, ReplicatedEvent.self]
        let realm = try await Realm.open(configuration: configuration)
        try await realm.asyncWrite { try realm.createReplicationSlot(named: "sink") }
        try await realm.asyncWrite {
            realm.create(ReplicatedCustomer.self, value: ["id": 1, "name": "Ada", "address": ["city": "London", "geo": ["lat": 51.5]],
                                                          "previous": [["city": "Paris"], ["city": "Rome"]]])
            realm.create(ReplicatedCustomer.self, value: ["id": 2, "name": "Alan"])
        }
        let customer = try #require(realm.object(ofType: ReplicatedCustomer.self, forPrimaryKey: 1))
        try await realm.asyncWrite { customer.address!.city = "Cambridge" }
        try await realm.asyncWrite { customer.address!.geo!.lat = 52.2 }
        try await realm.asyncWrite { customer.previous[1].city = "Milan" }
        try await realm.asyncWrite {
            customer.name = "Ada L."
            customer.previous[0].city = "Lyon"
        }
        try await realm.asyncWrite { customer.address = nil }

        var commits = realm.commits(since: "sink").makeAsyncIterator()
        let created = try #require(try await commits.next())
        #expect(created.changes.map(\.className) == ["ReplicatedCustomer"])
        #expect(created.changes[0].inserted.map(\.key) == [.int(1), .int(2)])
        var expected: [(property: [String], check: (ReplicatedCustomer) -> Bool)] = [
            (["address"], { $0.address?.city == "Cambridge" }),
            (["address"], { $0.address?.geo?.lat == 52.2 }),
            (["previous"], { $0.previous[1].city == "Milan" }),
            (["name", "previous"], { $0.name == "Ada L." && $0.previous[0].city == "Lyon" }),
            (["address"], { $0.address == nil }),
        ]
        while !expected.isEmpty {
            let (properties, check) = expected.removeFirst()
            let commit = try #require(try await commits.next())
            #expect(commit.changes.map(\.className) == ["ReplicatedCustomer"], "embedded classes are not listed")
            let change = try #require(commit.changes.first?.modified.first)
            #expect(commit.changes[0].modified.count == 1)
            #expect(change.key == .int(1))
            #expect(change.changedProperties == properties)
            #expect(try #require(commit.realm.object(ofType: ReplicatedCustomer.self, forPrimaryKey: 1)).read(check))
        }
    }

    /// A class a migration deletes is one `deletedAll` change, before the commit's others; its
    /// objects are not listed one by one.
    @Test func aClassDroppedByAMigrationIsDeletedAll() async throws {
        let directory = try TemporaryDirectory()
        var configuration = Self.configuration(directory)
        do {
            let realm = try await Realm.open(configuration: configuration)
            try await realm.asyncWrite { try realm.createReplicationSlot(named: "sink") }
            try await realm.asyncWrite {
                realm.create(ReplicatedOrder.self, value: ["code": "kept"])
                for name in ["a", "b", "c"] { realm.create(ReplicatedEvent.self, value: ["name": name]) }
            }
        }
        configuration.objectTypes = [ReplicatedOrder.self]
        configuration.schemaVersion = 2
        configuration.migrationBlock = { migration, _ in
            migration.deleteData(forType: "ReplicatedEvent")
            migration.enumerateObjects(ofType: "ReplicatedOrder") { _, new in new!["quantity"] = 7 }
        }
        let realm = try await Realm.open(configuration: configuration)
        var commits = realm.commits(since: "sink").makeAsyncIterator()
        _ = try #require(try await commits.next())  // the objects
        let migration = try #require(try await commits.next())
        #expect(migration.changes.map(\.className) == ["ReplicatedEvent", "ReplicatedOrder"])
        #expect(migration.changes[0].deletedAll && migration.changes[0].deleted.isEmpty && migration.changes[0].inserted.isEmpty)
        #expect(migration.realm.schema["ReplicatedEvent"] == nil)
        #expect(!migration.changes[1].deletedAll)
        #expect(migration.changes[1].modified.map(\.key) == [.string("kept")])
    }

    /// `Realm.ObjectKey(object)` is the key the commits give the object: what a sink writes for
    /// a link to it.
    @Test func anObjectsKeyIsTheKeyItsCommitsGive() async throws {
        let directory = try TemporaryDirectory()
        var configuration = Self.configuration(directory)
        configuration.objectTypes = [ReplicatedCustomer.self, ReplicatedAddress.self, ReplicatedGeo.self, ReplicatedEvent.self]
        let realm = try await Realm.open(configuration: configuration)
        #expect(Realm.ObjectKey(ReplicatedEvent()) == nil)
        #expect(Realm.ObjectKey(ReplicatedCustomer(value: ["id": 9])) == .int(9))
        try await realm.asyncWrite { try realm.createReplicationSlot(named: "sink") }
        let (event, customer) = try await realm.asyncWrite {
            let event = realm.create(ReplicatedEvent.self, value: ["name": "joined"])
            return (event, realm.create(ReplicatedCustomer.self, value: ["id": 3, "lastEvent": event]))
        }
        var commits = realm.commits(since: "sink").makeAsyncIterator()
        let commit = try #require(try await commits.next())
        let eventKey = try #require(commit.changes.first { $0.className == "ReplicatedEvent" }?.inserted.first?.key)
        #expect(Realm.ObjectKey(event) == eventKey)
        #expect(Realm.ObjectKey(customer) == .int(3))
        let linked = commit.changes.first { $0.className == "ReplicatedCustomer" }?.inserted.first?.object.read {
            ($0["lastEvent"] as? ObjectBase).flatMap(Realm.ObjectKey.init)
        }
        #expect(linked == eventKey)
        try await realm.asyncWrite { realm.delete(event) }
        #expect(Realm.ObjectKey(event) == nil)
    }
}
