import Foundation
import Testing
import RealmRuntime
import RealmTestSupport

@Suite struct GroupCommitTests {
    /// A new database whose syncs pass through `disk`, with one tree committed, and its directory.
    static func database(_ disk: FaultInjector) throws -> (Database, TreeID, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let database = try Database.open(path: directory.path("p.realm"),
                                         options: DatabaseOptions(faults: disk))
        let setup = try database.beginWrite()
        let tree = try setup.createTree()
        try setup.commit()
        return (database, tree, directory)
    }

    /// Prepares a transaction that writes `value` under `key` of tree `tree`.
    static func prepare(_ database: Database, tree: TreeID, key: UInt64) throws -> TransactionID {
        let write = try database.beginWrite()
        try write.put(tree, key: key, value: [UInt8(truncatingIfNeeded: key)])
        return try write.prepare()
    }

    @Test func commitsPreparedDuringASyncShareTheNextOne() async throws {
        let disk = FaultInjector()
        let (database, tree, directory) = try Self.database(disk)
        defer { withExtendedLifetime(directory) {} }
        let durableVersions = Recorder<TransactionID>()
        let pipeline = GroupCommit(database: database, label: "test") { version in durableVersions.append(version) }
        let before = disk.syncCount

        disk.holdNextSync()
        let first = try Self.prepare(database, tree: tree, key: 1)
        let firstDurable = Task { try await pipeline.waitUntilDurable(first) }
        await disk.waitUntilSyncIsHeld()
        // While the first sync is in flight, five more commits are prepared and wait.
        var later: [TransactionID] = []
        for key in 2...6 as ClosedRange<UInt64> { later.append(try Self.prepare(database, tree: tree, key: key)) }
        #expect(database.latestTransaction < first, "nothing is visible before its sync")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for transaction in later { group.addTask { try await pipeline.waitUntilDurable(transaction) } }
            disk.releaseSync()
            try await firstDurable.value
            try await group.waitForAll()
        }
        #expect(disk.syncCount - before == 2, "one sync for the first commit, one for the five after it")
        #expect(database.latestTransaction == later.last)
        #expect(durableVersions.all.last == later.last)
        let read = try database.beginRead()
        for key in 1...6 as ClosedRange<UInt64> { #expect(try read.value(tree, key: key) == [UInt8(key)]) }
        try pipeline.waitUntilDurableBlocking(first)  // already durable: returns at once
    }

    @Test func aFailedSyncFailsEveryCommitItCoveredAndLaterOnes() async throws {
        let disk = FaultInjector()
        let (database, tree, directory) = try Self.database(disk)
        defer { withExtendedLifetime(directory) {} }
        let durable = database.latestTransaction
        let pipeline = GroupCommit(database: database, label: "test") { _ in }
        disk.failSyncs()
        let transactions = try (1...3 as ClosedRange<UInt64>).map { try Self.prepare(database, tree: tree, key: $0) }
        for transaction in transactions {
            await #expect(throws: StorageError.self) { try await pipeline.waitUntilDurable(transaction) }
        }
        #expect(throws: StorageError.self) { try pipeline.waitUntilDurableBlocking(transactions[0]) }
        #expect(database.latestTransaction == durable)
        #expect(throws: StorageError.self) { try database.beginWrite() }  // sticky
    }
}

/// Where a flush runs: on the writer's own thread when nothing else is flushing and the disk is
/// fast, else on the commit queue (see `GroupCommit`).
extension GroupCommitTests {
    /// A database with a tree, a pipeline with the given inline limit, and its disk.
    static func pipeline(inlineFlushLimit: Duration) throws -> (Database, GroupCommit, FaultInjector, TreeID, TemporaryDirectory) {
        let disk = FaultInjector()
        let (database, tree, directory) = try Self.database(disk)
        let pipeline = GroupCommit(database: database, label: "test", inlineFlushLimit: inlineFlushLimit) { _ in }
        disk.mark()  // from here on, the pipeline's syncs
        return (database, pipeline, disk, tree, directory)
    }

    @Test func aLoneWriterFlushesOnItsOwnThreadOnceTheDiskIsKnownFast() async throws {
        let (database, pipeline, disk, tree, directory) = try Self.pipeline(inlineFlushLimit: .seconds(60))
        defer { withExtendedLifetime(directory) {} }
        for key in 1...3 as ClosedRange<UInt64> {
            try await pipeline.waitUntilDurable(try Self.prepare(database, tree: tree, key: key))
        }
        // The first flush has no measurement yet, so it goes to the queue; the others do not.
        #expect(disk.stepsSinceMark(.anySync).map(\.inTask) == [false, true, true])
        #expect(try database.beginRead().value(tree, key: 3) == [3])
    }

    @Test func aSlowDiskIsFlushedOnTheQueue() async throws {
        let (database, pipeline, disk, tree, directory) = try Self.pipeline(inlineFlushLimit: .zero)
        defer { withExtendedLifetime(directory) {} }
        for key in 1...3 as ClosedRange<UInt64> {
            try await pipeline.waitUntilDurable(try Self.prepare(database, tree: tree, key: key))
        }
        #expect(disk.stepsSinceMark(.anySync).map(\.inTask) == [false, false, false])
    }

    @Test @MainActor func theMainActorNeverFlushesOnItsThread() async throws {
        let (database, pipeline, disk, tree, directory) = try Self.pipeline(inlineFlushLimit: .seconds(60))
        defer { withExtendedLifetime(directory) {} }
        for key in 1...3 as ClosedRange<UInt64> {
            try await pipeline.waitUntilDurable(try Self.prepare(database, tree: tree, key: key))
        }
        #expect(disk.stepsSinceMark(.anySync).map(\.inTask) == [false, false, false])
    }

    /// Writers that wait while a writer flushes on its own thread are flushed on the queue, in
    /// one sync, and each learns its commit is durable.
    @Test func writersQueuedDuringAnInlineFlushAreFlushedOnTheQueue() async throws {
        let (database, pipeline, disk, tree, directory) = try Self.pipeline(inlineFlushLimit: .seconds(60))
        defer { withExtendedLifetime(directory) {} }
        try await pipeline.waitUntilDurable(try Self.prepare(database, tree: tree, key: 1))  // measures the disk

        disk.holdNextSync()
        let inline = try Self.prepare(database, tree: tree, key: 2)
        let inlineDurable = Task { try await pipeline.waitUntilDurable(inline) }
        await disk.waitUntilSyncIsHeld()
        var later: [TransactionID] = []
        for key in 3...5 as ClosedRange<UInt64> { later.append(try Self.prepare(database, tree: tree, key: key)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for transaction in later { group.addTask { try await pipeline.waitUntilDurable(transaction) } }
            // Registered (they find the inline flush running) before it ends: they must be
            // flushed by the queue, not forgotten.
            while pipeline.waiterCount < later.count { await Task.yield() }
            disk.releaseSync()
            try await inlineDurable.value
            try await group.waitForAll()
        }
        // The first, the inline one, one for the three after it.
        #expect(disk.stepsSinceMark(.anySync).map(\.inTask) == [false, true, false])
        #expect(database.latestTransaction == later.last)
        let read = try database.beginRead()
        for key in 1...5 as ClosedRange<UInt64> { #expect(try read.value(tree, key: key) == [UInt8(key)]) }
    }
}
