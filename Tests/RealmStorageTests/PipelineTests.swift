import Foundation
import Testing
@testable import RealmStorage
import RealmTestSupport

/// Group commit: the writer builds the next versions while a sync is in flight, one sync makes
/// several commits durable, and readers see a version only once it is durable.
@Suite struct PipelineTests {
    @Test func nextTransactionsAreBuiltWhileASyncIsInFlight() async throws {
        let directory = try TemporaryDirectory()
        let disk = FaultInjector()
        let database = try Database.open(path: directory.path(), options: DatabaseOptions(faults: disk))
        try database.beginWrite().abort()  // its sync (recording the session's first id) passes
        let syncsAtOpen = disk.syncCount
        let table = TableTreeTests.baseLayout
        func insert(_ key: UInt64) throws -> TransactionID {
            let write = try database.beginWrite()
            if try write.treeIDs().isEmpty { _ = try write.createTree() }
            let values = table.map { $0.defaultValue }
            try write.insertRow(1, key: key, values: values, layout: table)
            return try write.prepare()
        }
        let before = database.latestTransaction
        let first = try insert(1)

        // Flush the first commit on a dispatch thread (it blocks there); its sync stops at the gate.
        disk.holdNextSync()
        async let firstFlush = withCheckedThrowingContinuation { (continuation: CheckedContinuation<TransactionID, any Error>) in
            DispatchQueue.global().async { continuation.resume(with: Result { try database.flush() }) }
        }
        await disk.waitUntilSyncIsHeld()

        // While that sync is in flight, two more transactions are built on top of the first.
        let second = try insert(2)
        let third = try insert(3)
        #expect(second == first + 1 && third == first + 2)
        do {
            let read = try database.beginRead()  // nothing is durable yet, so nothing is visible
            #expect(read.transaction == before)
        }

        disk.releaseSync()
        #expect(try await firstFlush == first)
        #expect(database.latestTransaction == first)

        // One more flush makes both remaining commits durable with a single sync.
        #expect(try database.flush() == third)
        #expect(disk.syncCount == syncsAtOpen + 2)
        let read = try database.beginRead()
        #expect(read.transaction == third)
        #expect(try read.count(of: 1) == 3)
    }

    @Test func aFailedSyncFailsEveryCommitItCoveredAndLaterOnes() throws {
        let directory = try TemporaryDirectory()
        let faults = FaultInjector()
        let path = directory.path()
        do {
            let database = try Database.open(path: path, options: DatabaseOptions(faults: faults))
            let setup = try database.beginWrite()
            let tree = try setup.createTree()
            try setup.put(tree, key: 0, value: [0])
            try setup.commit()
            let durable = database.latestTransaction
            for key in 1...3 as ClosedRange<UInt64> {
                let write = try database.beginWrite()
                try write.put(tree, key: key, value: [UInt8(key)])
                _ = try write.prepare()
            }
            faults.failSync(after: 0)
            #expect(throws: StorageError.self) { try database.flush() }
            #expect(database.latestTransaction == durable, "no commit of the failed batch is reported durable")
            #expect(throws: StorageError.self) { try database.beginWrite() }  // sticky: reopen to continue
        }
        // After reopening, the file holds either every commit of the batch or none of them.
        let reopened = try Database.open(path: path)
        let read = try reopened.beginRead()
        let count = try read.count(of: 1)
        #expect(count == 1 || count == 4, "count \(count)")
        _ = try reopened.verify()
    }

    /// Eight commits stacked on each other and flushed together write the leaf-to-root path once:
    /// the copies the later commits replaced belong to versions nobody can read. The last
    /// version is what the file holds, also after reopening.
    @Test func aFlushWritesOnlyThePagesItsLastVersionUses() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let written = FaultInjector()
        let layout = TableTreeTests.baseLayout
        do {
            let database = try Database.open(path: path, options: DatabaseOptions(faults: written))
            let setup = try database.beginWrite()
            let table = try setup.createTree()
            for key in 0..<UInt64(2000) { try setup.insertRow(table, key: key, values: layout.map(\.defaultValue), layout: layout) }
            try setup.commit()

            func stackedUpdates(_ count: Int) throws -> Int {
                let before = written.bytesWritten
                for value in 1...count {
                    let write = try database.beginWrite()
                    try write.updateValue(table, key: 1500, column: 0, value: .int(Int64(value)), layout: layout)
                    _ = try write.prepare()
                }
                try database.flush()
                return written.bytesWritten - before
            }
            let one = try stackedUpdates(1)
            let eight = try stackedUpdates(8)
            // Each commit rewrites a leaf, the root, the catalog and the free list (plus the meta):
            // eight separate ones would write about eight times `one`.
            #expect(eight <= one + 2 * PageLayout.pageSize, "one commit \(one) bytes, eight stacked \(eight) bytes")
            try database.close()
        }
        let reopened = try Database.open(path: path)
        let read = try reopened.beginRead()
        let (leaf, row) = try #require(try read.row(in: read.root(of: 1), key: 1500))
        #expect(leaf.int(row, 0) == 8)
        _ = try reopened.verify()
    }
}
