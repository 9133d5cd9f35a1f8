import Foundation
import Testing
@testable import RealmStorage
import RealmTestSupport

/// Failing and torn writes, failed syncs and group commit, injected in-process through
/// `DatabaseOptions.faults`, on the in-place path (`writeAheadLog: false`: every batch as a
/// batch too large for the log is written). `WriteAheadLogTests` does the same for the log.
@Suite struct FaultInjectionTests {
    typealias Model = [TreeID: [UInt64: [UInt8]]]

    // MARK: (a) A write fails: the commit throws, the database stays at the last durable version

    /// Fails (ENOSPC) one write of a commit's batch, a data write or the meta page, ten times in
    /// a row; each time the database stays at the last durable version and the same changes then
    /// commit.
    @Test func aFailedWriteThrowsOutOfDiskSpaceAndKeepsTheDatabaseUsable() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let disk = FaultInjector()
        var generator = SplitMix64(seed: 11)
        var committed: Model = [:]
        var failedAtData = 0
        var failedAtMeta = 0
        do {
            let database = try Database.open(path: path, options: DatabaseOptions(faults: disk, writeAheadLog: false))
            let setup = try database.beginWrite()
            let tree = try setup.createTree()
            committed[tree] = [:]
            Self.change(setup, tree, &committed[tree]!, &generator, version: 0, keys: 400)
            try setup.commit()

            var dataWrites = 1  // data writes of the previous batch (one per run of consecutive pages)
            for round in 1...10 {
                let durable = database.latestTransaction
                let write = try database.beginWrite()
                var changed = committed
                let seed = generator.next()
                var replay = SplitMix64(seed: seed)
                Self.change(write, tree, &changed[tree]!, &replay, version: UInt64(round), keys: 60)
                if round % 3 == 0 {
                    disk.tearMeta(with: .fail(errno: ENOSPC), thenDie: false)
                } else {
                    disk.tear(write: Int(generator.next() % UInt64(dataWrites)), with: .fail(errno: ENOSPC), thenDie: false)
                }
                do {
                    try write.commit()
                    Issue.record("round \(round): the commit succeeded although a write failed")
                    committed = changed
                    continue
                } catch let error as StorageError {
                    #expect(error.code == .outOfDiskSpace, "\(error)")
                    #expect(error.message.contains("No space left"), "\(error.message)")
                }
                let failed = try #require(disk.lastFault)
                if failed.offset < UInt64(2 * PageLayout.pageSize) { failedAtMeta += 1 } else { failedAtData += 1 }
                // Still at the last durable version, for readers and for the next writer.
                #expect(database.latestTransaction == durable)
                try Self.expectContent(database, committed, "round \(round) after the failure")
                // The same changes again, without a fault.
                let retry = try database.beginWrite()
                #expect(retry.transaction > durable + 1, "a discarded batch's transaction id is never reused")
                var again = committed
                replay = SplitMix64(seed: seed)
                Self.change(retry, tree, &again[tree]!, &replay, version: UInt64(round), keys: 60)
                disk.mark()
                try retry.commit()
                dataWrites = disk.stepsSinceMark([.write]).count - 1
                committed = again
                try Self.expectContent(database, committed, "round \(round) after the retry")
            }
            try database.close()
        }
        #expect(failedAtData >= 5 && failedAtMeta >= 3, "data writes failed: \(failedAtData), meta writes failed: \(failedAtMeta)")
        let reopened = try Database.open(path: path)
        try Self.expectContent(reopened, committed, "after reopening")
    }

    /// A crash can leave pages of a batch whose meta never reached the file, stamped with ids no
    /// meta records, at page numbers the next process allocates again (allocation is
    /// deterministic). Were that process to give the same ids again, a later torn batch could
    /// pass the old pages off as its own, since recovery tells pages apart by id. Every open
    /// therefore starts above any id the previous process can have stamped — also when that
    /// process itself died before its first commit landed.
    @Test func idsOfABatchACrashLostAreNeverGivenAgain() throws {
        let directory = try TemporaryDirectory()
        func crashDuringACommit(_ database: Database, _ key: UInt64) throws -> TransactionID {
            let disk = try #require(database.options.faults as? FaultInjector)
            let write = try database.beginWrite()
            if try write.treeIDs().isEmpty { _ = try write.createTree() }
            for index in 0..<200 as Range<UInt64> { try write.put(1, key: key + index, value: [UInt8](repeating: 7, count: 100)) }
            disk.tearMeta(with: .fail(errno: EIO))  // the data pages reach the file; the meta, and nothing after, does not
            #expect(throws: StorageError.self) { try write.commit() }
            return write.transaction
        }
        var lost: [TransactionID] = []
        do {
            let first = try Database.open(path: directory.path(), options: DatabaseOptions(faults: FaultInjector(), writeAheadLog: false))
            let setup = try first.beginWrite()
            try setup.put(try setup.createTree(), key: 0, value: [0])
            try setup.commit()
            lost.append(try crashDuringACommit(first, 1_000))
        }
        do {  // dies before its first commit lands
            let second = try Database.open(path: directory.path(), options: DatabaseOptions(faults: FaultInjector(), writeAheadLog: false))
            #expect(second.openedVersion < lost[0], "the lost batch is not in the file")
            lost.append(try crashDuringACommit(second, 2_000))
        }
        let third = try Database.open(path: directory.path())
        let write = try third.beginWrite()
        #expect(write.transaction > lost.max()!, "ids \(lost) were stamped on pages in the file; the next is \(write.transaction)")
        #expect(try write.count(of: 1) == 1, "only the first commit is in the file")
        write.abort()
        _ = try third.verify()
    }

    // MARK: (b) Torn writes, then a crash

    /// Tears one write of a commit's batch, then "crashes" (no later write or sync reaches the
    /// file, including the ones `deinit` attempts). The file must open at the last durable commit,
    /// or, when the torn write was the meta page and every byte that differs from the old meta
    /// reached the file (all fields lie in the first 104 bytes, the rest is zero), at the new
    /// commit, whose data pages were all written before it: it is whole. Observed: tears after
    /// 0, 8 or 50 bytes of the meta open the old version; after 103 (the last field's top byte
    /// is zero in both), 104, 512 or 4095 bytes the new one. Content exact, `verify()` clean.
    @Test func aTornWriteFollowedByACrashOpensAtTheLastGoodCommit() throws {
        // A probe run records the batch's writes; the scenario is deterministic, so every run
        // issues the same writes and a case can name one by index.
        let probe = FaultInjector()
        let probeDirectory = try TemporaryDirectory()
        let writes = try Self.tornWriteScenario(path: probeDirectory.path(), disk: probe, tear: nil).batch
        try #require(writes.count >= 4, "the batch should have several runs: \(writes)")
        let meta = writes.count - 1
        #expect(writes[meta].offset < UInt64(2 * PageLayout.pageSize) && writes[meta].length == PageLayout.pageSize)
        let multiPage = try #require(writes.firstIndex { $0.length > 2 * PageLayout.pageSize && $0.offset >= UInt64(2 * PageLayout.pageSize) },
                                     "no multi-page run in \(writes)")

        var cases: [(write: Int, bytes: Int)] = [
            (0, 0), (0, 100), (0, PageLayout.pageSize - 1),
            (multiPage, PageLayout.pageSize), (multiPage, PageLayout.pageSize + 2000), (multiPage, writes[multiPage].length - 8),
            (meta - 1, writes[meta - 1].length / 2),
            (meta, 0), (meta, 8), (meta, 50), (meta, 103), (meta, 104), (meta, 512), (meta, PageLayout.pageSize - 1),
        ]
        cases.append((writes.count / 2, 1))
        var openedNew = 0
        for (write, bytes) in cases {
            let context = "tear write \(write) of \(writes.count) (\(writes[write])) after \(bytes) bytes"
            let directory = try TemporaryDirectory()
            let disk = FaultInjector()
            let models = try Self.tornWriteScenario(path: directory.path(), disk: disk, tear: (write, .partial(bytes: bytes, errno: EIO)))
            #expect(disk.isDead, "\(context): the torn write was never reached")
            let reopened = try Database.open(path: directory.path())
            let latest = reopened.openedVersion
            #expect(latest == models.durable || latest == models.durable + 1)
            if write != meta || bytes <= 50 {
                #expect(latest == models.durable, "\(context): opened at \(latest), the last durable commit is \(models.durable)")
            } else if bytes >= 512 {
                #expect(latest == models.durable + 1, "\(context): every field of the meta page is in the file")
            }
            try Self.expectContent(reopened, latest == models.durable ? models.before : models.after, "\(context), opened at \(latest)")
            if latest != models.durable { openedNew += 1 }
        }
        #expect(openedNew >= 2)
    }

    /// Three base commits, then one commit whose batch has several runs (multi-page overflow
    /// values, a bulk append and scattered updates). With `tear`, that batch's write is torn and
    /// the disk "dies"; the database is dropped without `close()`.
    static func tornWriteScenario(path: String, disk: FaultInjector, tear: (write: Int, fault: WriteFault)?) throws
        -> (before: Model, after: Model, durable: TransactionID, batch: [FaultInjector.Step]) {
        var generator = SplitMix64(seed: 7)
        var model: Model = [:]
        let database = try Database.open(path: path, options: DatabaseOptions(faults: disk, writeAheadLog: false))
        var tree: TreeID = 0
        for version in 0..<3 as Range<UInt64> {
            let write = try database.beginWrite()
            if version == 0 { tree = try write.createTree(); model[tree] = [:] }
            change(write, tree, &model[tree]!, &generator, version: version, keys: 300)
            try write.commit()
        }
        let before = model
        let durable = database.latestTransaction
        let write = try database.beginWrite()
        change(write, tree, &model[tree]!, &generator, version: 3, keys: 150)
        for key in 10_000..<10_300 as Range<UInt64> {  // appended: fresh pages at the end, one run
            let value = testValue(key: key, version: 3, length: 80)
            try write.put(tree, key: key, value: value)
            model[tree]![key] = value
        }
        for key in 20_000..<20_004 as Range<UInt64> {  // multi-page overflow runs
            let value = testValue(key: key, version: 3, length: 9_000 + Int(key % 4) * 5_000)
            try write.put(tree, key: key, value: value)
            model[tree]![key] = value
        }
        disk.mark()
        if let tear { disk.tear(write: tear.write, with: tear.fault) }
        do {
            try write.commit()
            if tear != nil { Issue.record("the torn commit succeeded") }
        } catch let error as StorageError {
            if tear == nil { throw error }
            #expect(error.code == .fileAccess, "\(error)")
        }
        return (before, model, durable, disk.stepsSinceMark([.write]))  // before deinit's checkpoint
    }

    /// A failed flush discards its commits. If the failed batch's meta page reached the file (a
    /// torn write that got its first sector through, then EIO), it is a valid meta naming pages
    /// that carry its transaction id; were the retry to rewrite some of those page numbers under
    /// the *same* id and the process then die mid-batch, recovery could not tell the two apart and
    /// would open a mix. So ids are never reused.
    @Test
    func aRetryAfterAFailedFlushCannotBeMistakenForTheFailedBatch() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let disk = FaultInjector()
        var model: Model = [:]
        var attemptModel: Model = [:]
        var retryModel: Model = [:]
        let (first, second): (TreeID, TreeID)
        do {
            let database = try Database.open(path: path, options: DatabaseOptions(faults: disk, writeAheadLog: false))
            let setup = try database.beginWrite()
            (first, second) = (try setup.createTree(), try setup.createTree())
            for tree in [first, second] {
                model[tree] = [:]
                for key in 0..<20 as Range<UInt64> {
                    let value = testValue(key: key, version: tree, length: 40)
                    try setup.put(tree, key: key, value: value)
                    model[tree]![key] = value
                }
            }
            try setup.commit()
            let durable = database.latestTransaction
            // Attempt 1 changes the first tree; its meta page write is torn after 512 bytes
            // (every field of the meta page is in the file), and fails.
            let attempt = try database.beginWrite()
            attemptModel = model
            attemptModel[first]![5] = Array(repeating: 0xAA, count: 40)
            try attempt.put(first, key: 5, value: attemptModel[first]![5]!)
            disk.tearMeta(with: .partial(bytes: 512, errno: EIO), thenDie: false)
            #expect(throws: StorageError.self) { try attempt.commit() }
            #expect(database.latestTransaction == durable)
            // Attempt 2, under the same transaction id, changes the second tree; the process dies
            // after the first page of its batch reached the file.
            let retry = try database.beginWrite()
            #expect(retry.transaction > durable + 1, "a discarded batch's transaction id is never reused")
            retryModel = model
            retryModel[second]![5] = Array(repeating: 0xBB, count: 40)
            try retry.put(second, key: 5, value: retryModel[second]![5]!)
            disk.tear(write: 0, with: .partial(bytes: PageLayout.pageSize, errno: EIO))
            #expect(throws: StorageError.self) { try retry.commit() }
        }
        let reopened = try Database.open(path: path)
        let read = try reopened.beginRead()
        let content = try Self.content(of: read)
        #expect(content == model || content == attemptModel || content == retryModel,
                "opened at \(read.transaction) with a mix: first tree key 5 = \(content[first]?[5]?.prefix(4) ?? []), second tree key 5 = \(content[second]?[5]?.prefix(4) ?? [])")
        #expect(throws: Never.self) { try reopened.verify() }
    }

    /// A torn write in a batch of several prepared commits (group commit): none of them survive.
    @Test func aTornGroupCommitLosesTheWholeBatch() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let disk = FaultInjector()
        var generator = SplitMix64(seed: 5)
        var model: Model = [:]
        do {
            let database = try Database.open(path: path, options: DatabaseOptions(faults: disk, writeAheadLog: false))
            let setup = try database.beginWrite()
            let tree = try setup.createTree()
            model[tree] = [:]
            Self.change(setup, tree, &model[tree]!, &generator, version: 0, keys: 300)
            try setup.commit()
            var scratch = model
            for version in 1...3 as ClosedRange<UInt64> {
                let write = try database.beginWrite()
                Self.change(write, tree, &scratch[tree]!, &generator, version: version, keys: 100)
                _ = try write.prepare()
            }
            disk.tear(write: 0, with: .partial(bytes: 5 * PageLayout.pageSize + 100, errno: EIO))
            #expect(throws: StorageError.self) { try database.flush() }
            #expect(disk.lastFault?.offset ?? 0 >= UInt64(2 * PageLayout.pageSize), "a data write was torn")
        }
        let reopened = try Database.open(path: path)
        try Self.expectContent(reopened, model, "after the torn group commit")
    }

    // MARK: (c) A failed sync

    /// After a failed `fdatasync` the kernel may have dropped the dirty pages, so the database
    /// refuses every later write. The commit threw, so it did not happen: the batch is taken
    /// back (its log record cut off; in place, its meta page overwritten by one naming the
    /// previous version, synced), and a reopen finds the previous version — although the
    /// injected failure comes before the real sync, and a reopen in the same boot reads the
    /// batch's pages from the page cache (before issue 36, it found the failed commit there).
    @Test(arguments: [true, false])
    func aFailedSyncIsStickyAndTheFileHoldsOneWholeVersion(writeAheadLog: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let faults = FaultInjector()
        var generator = SplitMix64(seed: 3)
        var before: Model = [:]
        var after: Model = [:]
        var durable: TransactionID = 0
        var failed: TransactionID = 0
        do {
            let database = try Database.open(path: path, options: DatabaseOptions(faults: faults, writeAheadLog: writeAheadLog))
            let setup = try database.beginWrite()
            let tree = try setup.createTree()
            before[tree] = [:]
            Self.change(setup, tree, &before[tree]!, &generator, version: 0, keys: 300)
            try setup.commit()
            durable = database.latestTransaction
            after = before
            let write = try database.beginWrite()
            failed = write.transaction
            Self.change(write, tree, &after[tree]!, &generator, version: 1, keys: 100)
            faults.failSync(after: 0)
            do {
                try write.commit()
                Issue.record("the commit succeeded although its sync failed")
            } catch let error as StorageError {
                #expect(error.code == .fileAccess && error.message.contains("sync"), "\(error)")
            }
            #expect(database.latestTransaction == durable, "a commit whose sync failed is not published")
            try Self.expectContent(database, before, "readers after the failed sync", verify: false)
            // Sticky: no more writes through this instance.
            #expect(throws: StorageError.self) { try database.beginWrite() }
            #expect(throws: StorageError.self) { try database.flush() }
            let (syncs, writes) = (faults.syncCount, faults.writeCount)
            // Closes without the usual flush and checkpoint, and reports the failure again.
            #expect(throws: StorageError.self) { try database.close() }
            #expect(throws: Never.self) { try database.close() }
            #expect(faults.syncCount == syncs && faults.writeCount == writes, "nothing is written after the failure")
        }
        let reopened = try Database.open(path: path)
        #expect(reopened.openedVersion != failed, "the failed commit is not in the file")
        try Self.expectContent(reopened, before, "reopened at \(reopened.openedVersion)")
    }

    // MARK: (d) Group commit

    @Test func oneFlushSyncsEveryPreparedCommitOnceAndReadersSeeOnlyFlushedOnes() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let faults = FaultInjector()
        var generator = SplitMix64(seed: 9)
        var model: Model = [:]
        let database = try Database.open(path: path, options: DatabaseOptions(faults: faults))
        let setup = try database.beginWrite()
        let tree = try setup.createTree()
        model[tree] = [:]
        Self.change(setup, tree, &model[tree]!, &generator, version: 0, keys: 200)
        try setup.commit()
        let durable = database.latestTransaction
        let flushedModel = model
        let pinned = try database.beginRead()

        let syncs = faults.syncCount
        var prepared: [TransactionID] = []
        for version in 1...5 as ClosedRange<UInt64> {
            let write = try database.beginWrite()
            // A write transaction builds on the prepared (unflushed) commits below it.
            if let last = prepared.last { #expect(write.transaction == last + 1) }
            #expect(try write.count(of: tree) == UInt64(model[tree]!.count))
            Self.change(write, tree, &model[tree]!, &generator, version: version, keys: 50)
            prepared.append(try write.prepare())
            // Readers see only the flushed version.
            #expect(database.latestTransaction == durable)
            try Self.expectContent(database, flushedModel, "before the flush, after preparing \(version)", verify: false)
        }
        #expect(faults.syncCount == syncs, "prepare does not sync")
        #expect(try database.flush() == prepared.last)
        #expect(faults.syncCount == syncs + 1, "one sync for \(prepared.count) commits")
        #expect(try database.flush() == prepared.last)
        #expect(faults.syncCount == syncs + 1, "a flush with nothing pending does not sync")
        #expect(database.latestTransaction == prepared.last)
        try Self.expectContent(database, model, "after the flush")
        // A reader pinned before the flush still sees its version.
        #expect(pinned.transaction == durable)
        #expect(try Self.content(of: pinned) == flushedModel)
        _ = consume pinned
        try database.close()
        let reopened = try Database.open(path: path)
        try Self.expectContent(reopened, model, "after reopening")
    }

    // MARK: Helpers

    /// Random puts (some of multi-page overflow size) and removes of existing keys, mirrored in `model`.
    static func change(_ write: WriteTransaction, _ tree: TreeID, _ model: inout [UInt64: [UInt8]],
                       _ generator: inout SplitMix64, version: UInt64, keys: Int) {
        for _ in 0..<keys {
            let key = generator.next() % 2_000
            if generator.next() % 4 == 0, model[key] != nil {
                _ = try? write.remove(tree, key: key)
                model[key] = nil
            } else {
                let length = generator.next() % 30 == 0 ? 1_500 + Int(generator.next() % 12_000) : Int(generator.next() % 150)
                let value = testValue(key: key, version: version, length: length)
                _ = try? write.put(tree, key: key, value: value)
                model[key] = value
            }
        }
    }

    /// Every tree's entries in the newest version.
    static func content(of read: ReadTransaction) throws -> Model {
        var content: Model = [:]
        for tree in try read.treeIDs() {
            var entries: [UInt64: [UInt8]] = [:]
            try read.forEach(in: read.root(of: tree)) { key, value in entries[key] = Array(value); return true }
            content[tree] = entries
        }
        return content
    }

    static func expectContent(_ database: Database, _ model: Model, _ context: String, verify: Bool = true,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        let read = try database.beginRead()
        let content = try content(of: read)
        #expect(content.keys.sorted() == model.keys.sorted(), "\(context): trees", sourceLocation: sourceLocation)
        for (tree, entries) in model {
            let found = content[tree] ?? [:]
            let wrong = entries.filter { found[$0.key] != $0.value }.map(\.key) + found.keys.filter { entries[$0] == nil }
            #expect(wrong.isEmpty, "\(context): tree \(tree) differs at keys \(wrong.sorted().prefix(10)) (\(found.count) vs \(entries.count) entries)",
                    sourceLocation: sourceLocation)
        }
        if verify {
            let report = try database.verify()
            #expect(report.entries == UInt64(model.values.reduce(0) { $0 + $1.count }), "\(context)", sourceLocation: sourceLocation)
        }
    }
}

extension FaultInjector {
    /// Data file write number `index` (0: the next) behaves as `fault`; with `thenDie`, the
    /// process dies with it (see `FaultInjector.Persistence.dead`): dropping a `Database` is not
    /// a crash, its `deinit` flushes and writes a checkpoint meta page, which would overwrite a
    /// torn meta.
    func tear(write index: Int, with fault: WriteFault, thenDie: Bool = true) {
        inject(fault, into: [.write], after: index, then: thenDie ? .dead : .once)
    }

    /// The next write of a meta page (page 0 or 1) behaves as `fault`; with `thenDie`, the
    /// process dies with it.
    func tearMeta(with fault: WriteFault, thenDie: Bool = true) {
        inject(fault, into: [.write], matching: FaultInjector.writesMetaPage, then: thenDie ? .dead : .once)
    }
}
