import Foundation
import Testing
import RealmActors
import RealmTestSupport

final class WPOther: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

final class WPThird: Object {
    @Persisted var label = ""
}

/// One process's handle on the shared file, on an actor of its own: its writes are `asyncWrite`s,
/// which wait for the other process without blocking a thread of the pool.
actor WritingProcess {
    private var realm: Realm!

    init(configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    /// Reads item 0's value and stores it plus one (so a write on a stale version loses one).
    func increment() async throws {
        try await realm.asyncWrite {
            let item = realm.object(ofType: FLItem.self, forPrimaryKey: 0)!
            item.value += 1
        }
    }

    func value() async -> Int {
        await realm.asyncRefresh()
        return realm.object(ofType: FLItem.self, forPrimaryKey: 0)?.value ?? -1
    }
}

/// Several processes writing one file (issue 39): two handles through different paths to one
/// file stand for two processes (see `FollowerTests`). Write ownership passes between them
/// through the lock file, each builds on the other's commits, each one's change streams see the
/// other's commits, and a class one of them adds survives the other's writes.
@Suite(.timeLimit(.minutes(1))) struct WritingProcessesTests {
    static func configurations() throws -> (directory: TemporaryDirectory, first: Realm.Configuration, second: Realm.Configuration) {
        let pair = try FollowerTests.pair()
        var second = pair.follower
        second.readOnly = false
        return (pair.directory, pair.writer, second)
    }

    @Test func twoWritingProcessesTakeTurnsOnEachOthersCommits() async throws {
        let (directory, firstConfiguration, secondConfiguration) = try Self.configurations()
        defer { withExtendedLifetime(directory) {} }
        let first = try await WritingProcess(configuration: firstConfiguration)
        let second = try await WritingProcess(configuration: secondConfiguration)
        do {
            let setup = try Realm(configuration: firstConfiguration)
            try setup.write { setup.create(FLItem.self, value: ["id": 0, "value": 0]) }
        }
        // Both at once: each write waits for the other process's ownership, then builds on
        // its commit.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for process in [first, second] {
                group.addTask { for _ in 0..<25 { try await process.increment() } }
            }
            try await group.waitForAll()
        }
        #expect(await first.value() == 50)
        #expect(await second.value() == 50)
    }

    @Test func eachProcessesChangeStreamsSeeTheOthersCommits() async throws {
        let (directory, firstConfiguration, secondConfiguration) = try Self.configurations()
        defer { withExtendedLifetime(directory) {} }
        let first = try Realm(configuration: firstConfiguration)
        try first.write { for id in 0..<3 { first.create(FLItem.self, value: ["id": id, "value": id]) } }
        let second = try Realm(configuration: secondConfiguration)
        var changes = first.objects(FLItem.self).sorted(byKeyPath: "id").changes.makeAsyncIterator()
        guard case .initial(let initial) = await changes.next() else { Issue.record("no initial"); return }
        #expect(initial.map(\.id) == [0, 1, 2])

        // The other process's commit, then this one's: each element says what that commit did
        // (the other's found by comparing versions, this one's from its own log).
        try second.write {
            second.create(FLItem.self, value: ["id": 3, "value": 3])
            second.object(ofType: FLItem.self, forPrimaryKey: 1)!.value = 10
        }
        guard case .update(let afterOther, let deletions, let insertions, let modifications) = await changes.next() else {
            Issue.record("no update"); return
        }
        #expect(afterOther.map(\.id) == [0, 1, 2, 3])
        #expect(deletions == [] && insertions == [3] && modifications == [1], "\(deletions) \(insertions) \(modifications)")

        try first.write { first.delete(first.object(ofType: FLItem.self, forPrimaryKey: 0)!) }
        guard case .update(let afterOwn, let ownDeletions, _, _) = await changes.next() else { Issue.record("no update"); return }
        #expect(afterOwn.map(\.id) == [1, 2, 3] && ownDeletions == [0])
        #expect(second.refresh() || second.objects(FLItem.self).count == 3)
        #expect(second.objects(FLItem.self).count == 3)
    }

    /// A write cancelled while it waits for another process's transaction gives back the write
    /// ownership its waiting thread takes afterwards: held idle, it would keep every other process
    /// waiting for good.
    @Test func aWriteCancelledWhileWaitingForAnotherProcessLeavesNoOwnershipBehind() async throws {
        let (directory, firstConfiguration, secondConfiguration) = try Self.configurations()
        defer { withExtendedLifetime(directory) {} }
        let first = try Realm(configuration: firstConfiguration)
        try first.write { first.create(FLItem.self, value: ["id": 0, "value": 0]) }
        let second = try await WritingProcess(configuration: secondConfiguration)
        first.beginWrite()  // this process owns writing until the transaction ends
        let waiting = Task { try await second.increment() }
        // The other process's write is blocked on the write byte lock once /proc/locks shows a
        // waiter on the lock file (polled: nothing else says when a thread blocks in fcntl).
        let lockFile = firstConfiguration.fileURL!.path + ".lock"
        var inode = stat()
        #expect(stat(lockFile, &inode) == 0)
        var blocked = false
        for _ in 0..<10_000 where !blocked {
            let locks = (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? ""
            blocked = locks.split(separator: "\n").contains { $0.contains("->") && $0.contains(":\(inode.st_ino) ") }
            if !blocked { try await Task.sleep(for: .milliseconds(1)) }
        }
        #expect(blocked, "the other process's write waits for this one")
        waiting.cancel()
        first.cancelWrite()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        // Writing again is not held up by the cancelled write's process.
        let writer = try await WritingProcess(configuration: firstConfiguration)
        let again = BlockingCall(async: { (try? await writer.increment()) != nil })
        guard await again.returns(within: 60) else {
            Issue.record("this process's write still waits for the cancelled write's process")
            return
        }
        #expect(await again.value())
        #expect(await second.value() == 1)
    }

    /// A replication consumer in one process reads the commits another process makes, each with
    /// its changes (every writing process stores its commits' change records for the file's
    /// slots), and its waiting loop wakes for them (the commit watcher tells the file's feed).
    @Test func aConsumerReadsAnotherProcesssCommits() async throws {
        let (directory, firstConfiguration, secondConfiguration) = try Self.configurations()
        defer { withExtendedLifetime(directory) {} }
        let consumerRealm = try await Realm.open(configuration: firstConfiguration)
        try await consumerRealm.asyncWrite { try consumerRealm.createReplicationSlot(named: "sink") }
        let consumer = Task {
            let reader = try await Realm.open(configuration: firstConfiguration)
            var keys: [Realm.ObjectKey] = []
            for try await commit in reader.commits(since: "sink") {
                keys += commit.changes.flatMap(\.inserted).map(\.key)
                try await reader.asyncWrite { try reader.confirmReplicationSlot(named: "sink", through: commit.version) }
                if keys.count == 3 { break }
            }
            return keys
        }
        let writer = try await Realm.open(configuration: secondConfiguration)
        for id in 1...3 {
            try await writer.asyncWrite { writer.create(FLItem.self, value: ["id": id, "value": id]) }
        }
        #expect(try await consumer.value == [.int(1), .int(2), .int(3)])
        withExtendedLifetime(consumerRealm) {}
    }

    /// An encrypted file is written by several processes too: each keeps the plaintext of the
    /// pages it read, and forgets the pages the other process's commits rewrote before it reads
    /// or builds on them (with a read-only process beside them: `EncryptedProcessesTests`). Each commit here rewrites every object (the pages the last one freed
    /// are reused), so a page remembered too long reads as an old value or as damage.
    @Test func anEncryptedFileIsWrittenByBothProcesses() async throws {
        var (directory, firstConfiguration, secondConfiguration) = try Self.configurations()
        defer { withExtendedLifetime(directory) {} }
        let key = Data((0..<64).map { UInt8($0) })
        firstConfiguration.encryptionKey = key
        secondConfiguration.encryptionKey = key
        let first = try Realm(configuration: firstConfiguration)
        try first.write {
            for id in 0..<2_000 { first.create(FLItem.self, value: ["id": id, "value": 0]) }
        }
        let second = try Realm(configuration: secondConfiguration)
        for round in 1...12 {
            let writer = round % 3 == 0 ? first : second
            try writer.write {
                for item in writer.objects(FLItem.self) { item.value = round }
            }
            for (name, realm) in [("first", first), ("second", second)] {
                realm.refresh()
                let values = Set(realm.objects(FLItem.self).map(\.value))
                #expect(values == [round], "round \(round), \(name): \(values.sorted().prefix(3))")
            }
        }
    }

    /// A class one process adds (a schema change in its commit) is not lost when the other
    /// process, which does not know the class, writes next: its write builds on the schema of the
    /// version it writes on, not the one it opened with.
    @Test func aClassAnotherProcessAddedSurvivesThisOnesWrites() throws {
        let (directory, firstConfiguration, secondConfiguration) = try Self.configurations()
        defer { withExtendedLifetime(directory) {} }
        let first = try Realm(configuration: firstConfiguration)
        try first.write { first.create(FLItem.self, value: ["id": 0, "value": 0]) }
        var withOther = secondConfiguration
        withOther.objectTypes = [FLItem.self, WPOther.self]
        let second = try Realm(configuration: withOther)
        try second.write { second.create(WPOther.self, value: ["id": 1, "name": "added"]) }

        try first.write { first.object(ofType: FLItem.self, forPrimaryKey: 0)!.value = 1 }
        try first.write { first.create(FLItem.self, value: ["id": 1, "value": 1]) }
        #expect(second.refresh())
        #expect(second.objects(WPOther.self).first?.name == "added")
        #expect(second.objects(FLItem.self).count == 2)
        try second.write { second.create(WPOther.self, value: ["id": 2, "name": "more"]) }
        #expect(second.objects(WPOther.self).count == 2)

        // This process adds a class of its own (a schema change it writes): the schema it writes
        // is the file's, with the other process's class, plus its own.
        var withThird = firstConfiguration
        withThird.objectTypes = [FLItem.self, WPThird.self]
        let third = try Realm(configuration: withThird)
        try third.write { third.create(WPThird.self, value: ["label": "third"]) }
        #expect(second.refresh())
        #expect(second.objects(WPOther.self).count == 2, "the other process's class is still in the schema")
        try second.write { second.create(WPOther.self, value: ["id": 3, "name": "after"]) }
        var everything = secondConfiguration
        everything.objectTypes = [FLItem.self, WPOther.self, WPThird.self]
        let reader = try Realm(configuration: everything)
        #expect(reader.objects(WPOther.self).count == 3 && reader.objects(WPThird.self).count == 1)
    }
}
