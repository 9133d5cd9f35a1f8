import Foundation
import Synchronization
import Testing
@testable import RealmStorage
import RealmTestSupport

/// Several writing processes on one file (`DatabaseOptions.sharesWriting`; issue 39, step 5):
/// write ownership taken and given up through the lock file, each owner building on the other
/// processes' commits (tip rebuilt from the file, shared ids and log cursor), pins of every
/// process honoured, and a dead owner's unpublished writes taken back by the next owner.
///
/// Two `Database` instances on one path stand for two processes, as in `LockFileTests` (Linux's
/// open-file-description locks conflict between descriptions as between processes).
@Suite struct SharedWritingTests {
    static let layout = [ColumnSpec(.int)]

    static func options(_ faults: (any IOFaultInjector)? = nil) -> DatabaseOptions {
        var options = DatabaseOptions(faults: faults)
        options.sharesWriting = true
        return options
    }

    /// A new file with one table of one counter row (key 0); the table's id.
    static func makeFile(_ path: String) throws -> TreeID {
        let database = try Database.open(path: path, options: options())
        let write = try database.beginWrite()
        let table = try write.createTree()
        try write.insertRow(table, key: 0, values: [.int(0)], layout: layout)
        try write.commit()
        try database.close()
        return table
    }

    static func value(_ read: ReadTransaction, _ table: TreeID, key: UInt64) throws -> Int64? {
        guard let (leaf, row) = try read.row(in: try read.root(of: table), key: key) else { return nil }
        return leaf.int(row, 0)
    }

    static func value(_ write: WriteTransaction, _ table: TreeID, key: UInt64) throws -> Int64? {
        guard let (leaf, row) = try write.row(in: try write.root(of: table), key: key) else { return nil }
        return leaf.int(row, 0)
    }

    /// One commit on `database`: the counter read and incremented (so a writer building on a
    /// stale version loses the other's increments), and row `key` inserted.
    static func increment(_ database: Database, _ table: TreeID, inserting key: UInt64) throws {
        let write = try database.beginWrite()
        let counter = try #require(try value(write, table, key: 0))
        try write.updateValue(table, key: 0, column: 0, value: .int(counter + 1), layout: layout)
        try write.insertRow(table, key: key, values: [.int(Int64(key))], layout: layout)
        try write.commit()
    }

    @Test func twoWritersTakeTurnsEachOnTheOthersCommits() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let table = try Self.makeFile(path)
        let first = try Database.open(path: path, options: Self.options())
        let second = try Database.open(path: path, options: Self.options())
        #expect(second.lockFile?.isFirst == false)
        var generator = SplitMix64(seed: 39)
        var keys: [UInt64] = []
        for round in 1...60 {
            // Turns at random, runs of one writer included (it keeps building on its own tip).
            let database = generator.next() % 2 == 0 ? first : second
            try Self.increment(database, table, inserting: UInt64(round))
            keys.append(UInt64(round))
            for reader in [first, second] {
                let read = try reader.beginRead()
                #expect(try Self.value(read, table, key: 0) == Int64(round), "round \(round): each sees every commit")
            }
        }
        #expect(first.latestTransaction == second.latestTransaction)
        try first.close()
        try second.close()

        let reopened = try Database.open(path: path)
        do {
            let read = try reopened.beginRead()
            #expect(try Self.value(read, table, key: 0) == 60)
            for key in keys { #expect(try Self.value(read, table, key: key) == Int64(key)) }
        }
        _ = try reopened.verify()
        try reopened.close()
    }

    /// A snapshot one writing process reads keeps its pages while the other rewrites the table
    /// many times (the free list each owner rebuilds releases runs against every process's pins),
    /// and once it is released the pages are reused: the file stops growing.
    @Test func eachWriterHonoursTheOthersPins() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let table = try Self.makeFile(path)
        let first = try Database.open(path: path, options: Self.options())
        let second = try Database.open(path: path, options: Self.options())
        for key in 1...UInt64(500) { try Self.increment(first, table, inserting: key) }
        var snapshot: ReadTransaction? = try second.beginRead()
        let pinned = try #require(snapshot).transaction
        for _ in 0..<30 {
            let write = try first.beginWrite()
            for key in 1...UInt64(500) { try write.updateValue(table, key: key, column: 0, value: .int(-1), layout: Self.layout) }
            try write.commit()
        }
        #expect(first.oldestPinnedTransaction == pinned, "the other process's pin, seen by the owner")
        for key in 1...UInt64(500) { #expect(try Self.value(#require(snapshot), table, key: key) == Int64(key)) }
        snapshot = nil
        // Both take turns on the released pages.
        let grown = first.spaceUsage.fileBytes
        for round in 0..<40 {
            let write = try (round % 2 == 0 ? first : second).beginWrite()
            for key in 1...UInt64(500) { try write.updateValue(table, key: key, column: 0, value: .int(Int64(round)), layout: Self.layout) }
            try write.commit()
        }
        #expect(first.spaceUsage.fileBytes == grown, "40 rewrites fit in the pages the snapshot held")
        try first.close()
        try second.close()
        let reopened = try Database.open(path: path)
        _ = try reopened.verify()
        try reopened.close()
    }

    /// An owner whose commit failed so that it could not be taken back — its log record is in the
    /// log's page cache, never synced, never published, and its caller was told it failed —
    /// stops writing and leaves the owner word naming it, as a dead owner does. The next owner
    /// cuts the record off (warm recovery), so no later recovery replays it; without the cut a
    /// reopen brings the failed commit back.
    @Test func theNextOwnerTakesBackAFailedOwnersUnpublishedRecord() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let table = try Self.makeFile(path)
        let disk = FaultInjector(), otherDisk = FaultInjector()
        let failing = try Database.open(path: path, options: Self.options(disk))
        let other = try Database.open(path: path, options: Self.options(otherDisk))
        try Self.increment(failing, table, inserting: 1)

        disk.inject(.fail(errno: EIO), into: [.logSync])
        disk.inject(.fail(errno: EIO), into: [.logTruncate])
        #expect(throws: StorageError.self) { try Self.increment(failing, table, inserting: 2) }
        #expect(throws: StorageError.self) { try failing.beginWrite() }

        let write = try other.beginWrite()  // takes ownership: warm recovery
        #expect(try Self.value(write, table, key: 2) == nil)
        write.abort()
        // Both go without a checkpoint (which would start a new log generation and so hide a
        // record left in the log): the next open replays whatever the log still holds.
        otherDisk.die()
        try? failing.close()
        #expect(throws: StorageError.self) { try other.close() }

        let reopened = try Database.open(path: path)
        #expect(reopened.recordsReplayed == 1, "the first commit's record only: the failed one's was cut")
        do {
            let read = try reopened.beginRead()
            #expect(try Self.value(read, table, key: 1) == 1)
            #expect(try Self.value(read, table, key: 2) == nil, "the failed commit is not replayed")
            #expect(try Self.value(read, table, key: 0) == 1)
        }
        try reopened.close()
    }

    /// Closing does not wait for another process's write transaction: the checkpoints a close
    /// writes need write ownership, and the owner (or the last process to close) writes them.
    @Test func closingDoesNotWaitForAnotherProcesssTransaction() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let table = try Self.makeFile(path)
        let owner = try Database.open(path: path, options: Self.options())
        let closing = try Database.open(path: path, options: Self.options())
        try Self.increment(closing, table, inserting: 1)  // leaves a record to checkpoint
        let write = try owner.beginWrite()  // owns writing until it ends
        let closed = BlockingCall { (try? closing.close()) != nil }
        // A close that waited would wait for this test: raced against a deadline instead.
        #expect(await closed.returns(within: 60), "the close returned while the other process owned writing")
        write.abort()
        #expect(await closed.value())
        try owner.close()
        let reopened = try Database.open(path: path)
        #expect(try Self.value(reopened.beginRead(), table, key: 1) == 1)
        try reopened.close()
    }

    /// A process that never stops writing — its next write transaction always begins before its
    /// last commit is durable (group commit), so it is never idle — gives writing up once it has
    /// held it for a quantum while another process waits, and asks again only after the other
    /// took it: the other's write gets its turn while the busy one goes on. (A byte lock's
    /// waiters otherwise get it only when the owner is idle, or not at all: the kernel does not
    /// queue them.)
    @Test func aBusyWriterYieldsToAWaitingProcess() async throws {
        final class Flag: Sendable {
            private let value = Atomic<Bool>(false)
            func set() { value.store(true, ordering: .sequentiallyConsistent) }
            var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
        }
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let table = try Self.makeFile(path)
        let first = try Database.open(path: path, options: Self.options())
        let second = try Database.open(path: path, options: Self.options())
        try Self.increment(first, table, inserting: 1)
        // The busy process owns writing from here on, with a commit pending: the other waits.
        let opening = try first.beginWrite()
        try opening.updateValue(table, key: 1, column: 0, value: .int(1), layout: Self.layout)
        _ = try opening.prepare()
        let secondCommitted = Flag()
        // Each on a thread of its own: both block while the other owns writing.
        let busy = BlockingCall { () -> Result<Int, StorageError> in
            do {
                var commits = 1
                let giveUp = ContinuousClock.now + .seconds(30)
                while !secondCommitted.isSet, ContinuousClock.now < giveUp {
                    let write = try first.beginWrite()
                    try write.updateValue(table, key: 1, column: 0, value: .int(Int64(commits + 1)), layout: Self.layout)
                    _ = try write.prepare()  // pending, not flushed: this process never goes idle
                    commits += 1
                }
                let sawIt = secondCommitted.isSet
                // Idle now, which releases writing in any case: the other write ends either way.
                _ = try first.flush()
                return sawIt ? .success(commits) : .failure(StorageError(.fail, "the other process never got its turn"))
            } catch {
                return .failure(error as? StorageError ?? StorageError(.fail, "\(error)"))
            }
        }
        let waiting = BlockingCall { () -> StorageError? in
            do {
                let write = try second.beginWrite()
                try write.updateValue(table, key: 0, column: 0, value: .int(-7), layout: Self.layout)
                try write.commit()
                secondCommitted.set()
                return nil
            } catch {
                return error as? StorageError ?? StorageError(.fail, "\(error)")
            }
        }
        let commits = try await busy.value().get()
        #expect(await waiting.value() == nil)
        try first.close()
        try second.close()
        let reopened = try Database.open(path: path)
        do {
            let read = try reopened.beginRead()
            #expect(try Self.value(read, table, key: 0) == -7, "the waiting process's commit")
            let (busyValue, otherValue) = (try Self.value(read, table, key: 1), try Self.value(read, table, key: 0))
            #expect(busyValue == Int64(commits), "every commit of the busy one, on both sides of the other's: \(commits) commits, \(String(describing: busyValue)), \(String(describing: otherValue))")
        }
        try reopened.close()
    }

    /// A process that hands writing over (its turn is over) while another waits for it does not
    /// take it straight back: the kernel wakes a byte lock's waiters but does not queue them, so
    /// a process asking again at once wins the lock before the woken one runs. Here one process
    /// takes and hands ownership over in a tight loop while the other waits: once the other's
    /// wait shows, the looping process's next attempt waits until the other took it.
    @Test func aProcessThatGaveWritingUpLetsTheWaitingOneTakeItFirst() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        _ = try Self.makeFile(path)
        let first = try Database.open(path: path, options: Self.options())
        let second = try Database.open(path: path, options: Self.options())
        let (looping, waiting) = (try #require(first.lockFile), try #require(second.lockFile))
        _ = try #require(try looping.acquireWriteOwnership(waiting: false))
        let other = BlockingCall { () -> Bool in
            guard (try? waiting.acquireWriteOwnership(waiting: true)) != nil else { return false }
            waiting.releaseWriteOwnership()
            return true
        }
        let loop = BlockingCall { () -> Int? in
            // Until the other's wait shows (it flags its slot before it blocks).
            while !looping.anotherProcessWaitsToWrite() {}
            for turn in 0..<100_000 {
                looping.releaseWriteOwnership(handingOver: true)
                guard (try? looping.acquireWriteOwnership(waiting: true)) != nil else { return nil }
                if !looping.anotherProcessWaitsToWrite() { return turn }
            }
            return nil
        }
        let turns = await loop.value()
        looping.releaseWriteOwnership()
        #expect(await other.value())
        // 0 but when the woken process is not scheduled within the hand-over's time-out (a
        // loaded machine); without the hand-over, tens to thousands.
        #expect(turns.map { $0 <= 1 } == true, "the looping process took writing back \(turns.map(String.init) ?? "100,000") times before the waiting one had it")
        try first.close()
        try second.close()
    }

    /// Without `sharesWriting` on both sides, a second writing process is still refused.
    @Test func aWriterThatDoesNotShareIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        _ = try Self.makeFile(path)
        let sharing = try Database.open(path: path, options: Self.options())
        let refused = try #require(throws: StorageError.self) { try Database.open(path: path) }
        #expect(refused.code == .incompatibleLockFile)
        try sharing.close()
        let alone = try Database.open(path: path)
        #expect(throws: StorageError.self) { try Database.open(path: path, options: Self.options()) }
        try alone.close()
    }
}
