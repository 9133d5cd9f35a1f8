#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Making prepared commits durable (see `Database`, "Commit protocol"): one batch per flush,
// through the write-ahead log or in place; taking back a batch that failed; the log's checkpoint
// and the meta-only checkpoint a clean close writes. All of it runs under `flushLock` (taken by
// `flushBatch`, `checkpointLog` and `writeCheckpoint`; the `…Locked` functions expect it held).
extension Database {
    /// Writes every prepared commit to the file with one sync, then publishes the newest to readers.
    ///
    /// Safe to call while another thread runs the next write transaction. Returns the newest
    /// durable transaction.
    ///
    /// A flush that throws made nothing durable: whichever step failed — growing the file, a
    /// write, a sync, the log's checkpoint — the batch is discarded, and what it had put in
    /// either file is taken back (its log record cut off, or its meta page overwritten by one
    /// naming the last durable version, synced), so a reopen finds the version before it. On a
    /// write error (disk full…) the database stays usable at the last durable version; on a sync
    /// error it refuses further writes (the kernel may have dropped unsynced pages) until
    /// reopened. Only if the taking back fails too is the outcome unknown (the error says so).
    /// Conversely, an error after the batch is durable (its meta page's write to its place, the
    /// checkpoint after it) does not fail the flush: the commit stands, and later writes throw
    /// that error until the database is reopened.
    @discardableResult
    package func flush() throws -> TransactionID {
        try flushBatch().newest
    }

    /// ``flush()``, also saying how many commits the flush made durable (0 when none was
    /// pending): the size of a group commit's batch, for instrumentation.
    package func flushBatch() throws -> (newest: TransactionID, commits: Int) {
        try flushLock.withLock { _ in
            // Commits pending means this process owns writing (it took ownership to prepare
            // them); once they are durable and no write transaction is open, it gives it up.
            defer { releaseOwnershipIfIdleLocked() }
            let (batch, published, slot) = try state.withLock { state in
                if let failure = state.failure { throw failure }
                return (state.pending, state.published, state.publishedSlot)
            }
            guard let last = batch.last else { return (published.transaction, 0) }
            var meta = last.tip.meta
            meta.durableBase = published.transaction
            let newSlot = 1 - slot
            let sorted = Self.pagesWritten(by: batch)
            // The runs a follower's decrypted pages must forget (see `LockFile.publish`).
            let written = map.decryption == nil ? [] : Self.runs(of: sorted)
            do {
                try writeBatch(sorted, meta: meta, slot: newSlot)
            } catch BatchFailure.durable(let error) {
                // The commit stands (a reopen replays its record), so it is published and its
                // callers are told it succeeded; the data file lacks its meta page, which a
                // checkpoint would need, so later writes are refused until a reopen.
                publish(batch: batch.count, meta: meta, tip: last.tip, slot: newSlot, written: written)
                state.withLock { state in
                    // Commits prepared meanwhile, on top of this one, will not be flushed.
                    state.discardedThrough = max(state.discardedThrough, state.tip.meta.transaction)
                    state.pending = []
                    state.failure = Self.stoppedAfterCommit(error)
                }
                return (meta.transaction, batch.count)
            } catch BatchFailure.unknown(let error) {
                // The batch could not be taken back: what the file holds is known only after
                // reopening. Writes stop.
                state.withLock { state in
                    state.discardedThrough = max(state.discardedThrough, state.tip.meta.transaction)
                    state.failure = error
                    state.pending = []
                }
                throw error
            } catch {
                // Nothing of the batch is in either file for recovery to find: drop it. After a
                // failed sync the page cache is not trusted, so writes stop until a reopen; after
                // a failed write (a full disk) the database stays usable.
                let (error, stopsWrites, metaInFile) = switch error {
                case BatchFailure.discarded(let cause, let stops): (cause, stops, false)
                case BatchFailure.metaToRetract(let cause, let stops): (cause, stops, true)
                default: ((error as? StorageError) ?? StorageError(.fail, "\(error)", path: path), false, false)
                }
                state.withLock { state in
                    state.discardedThrough = max(state.discardedThrough, state.tip.meta.transaction)
                    state.discardReason = error
                    state.pending = []
                    state.tip = state.publishedTip
                    state.generation += 1
                }
                if metaInFile {
                    // An in-place batch's meta page may be in the page cache, and may yet reach
                    // the disk: the last durable version's meta goes over it, synced, so no
                    // reopen can choose the batch.
                    do {
                        try rewritePublishedMeta(over: newSlot)
                    } catch let retraction as StorageError {
                        let unknown = Self.unknownOutcome(error, retraction)
                        state.withLock { $0.failure = unknown }
                        throw unknown
                    }
                }
                if stopsWrites { state.withLock { $0.failure = error } }
                throw error
            }
            publish(batch: batch.count, meta: meta, tip: last.tip, slot: newSlot, written: written)
            if let log, log.recordBytes >= WriteAheadLog.checkpointBytes {
                // The batch is durable and published whatever happens here; a failure stops
                // later writes (the file's state is unknown) but does not undo this commit.
                do {
                    try checkpointLogLocked()
                } catch let error as StorageError {
                    state.withLock { $0.failure = Self.stoppedAfterCommit(error) }
                }
            }
            return (meta.transaction, batch.count)
        }
    }

    /// Makes a durable batch of `count` prepared commits, ending at `meta`, the readers' version.
    private func publish(batch count: Int, meta: MetaPage, tip last: VersionTip, slot: Int, written: [PageRun]) {
        state.withLock { state in
            var tip = last
            tip.meta = meta
            state.published = meta
            state.publishedTip = tip
            state.publishedSlot = slot
            publishToOtherProcesses(meta, slot: slot, written: written, state: &state)
            state.pending.removeFirst(count)
            if state.pending.isEmpty { state.tip = tip }
        }
    }

    /// Publishes a durable version to the other processes (see `LockFile.publish`), with what the
    /// next write owner needs stored first: every published version's log record lies below the
    /// stored log end, so warm recovery never cuts one. Precondition: `state` is the locked state.
    func publishToOtherProcesses(_ meta: MetaPage, slot: Int, written: [PageRun] = [], state: inout State) {
        guard let lockFile else { return }
        if sharesWriting { lockFile.storeWriterState(nextTransaction: state.nextTransaction, logCursor: log?.sharedCursor) }
        let counter = lockFile.publish(meta, slot: slot, written: written)
        // This process's cache holds what it wrote: the ring up to here is seen.
        state.ringSeen = lockFile.ringHead
        state.tipCounter = counter
        if sharesWriting { state.adoptedCounter = counter }
    }

    /// The error later writes get after `error` met a commit that was already durable.
    private static func stoppedAfterCommit(_ error: StorageError) -> StorageError {
        StorageError(error.code, "\(error.message) (after the last commit was saved; the realm takes no more writes until it is reopened)",
                     path: error.path)
    }

    /// The error of a batch that failed with `error` and could not be taken back (`retraction`).
    private static func unknownOutcome(_ error: StorageError, _ retraction: StorageError) -> StorageError {
        StorageError(error.code, "\(error.message); taking the commit back failed too (\(retraction.message)), so whether it was saved is known only after reopening the realm",
                     path: error.path)
    }

    /// How writing a batch failed. Every case but `durable` is thrown to the batch's writers, and
    /// then the batch must not be what a reopen finds.
    private enum BatchFailure: Error {
        /// Nothing of the batch is in either file for recovery to find: it is discarded.
        /// `stopsWrites` after a failed sync, whose page cache is not trusted.
        case discarded(StorageError, stopsWrites: Bool)
        /// An in-place batch's meta page may be in the file (its write failed part-way, or its
        /// sync failed) until a meta naming the last durable version is written over it.
        case metaToRetract(StorageError, stopsWrites: Bool)
        /// The batch is durable (its log record is synced); what failed came after (its meta
        /// page's write to its place). The commit stands; later writes stop.
        case durable(StorageError)
        /// The batch could not be taken back after a failure: whether it is durable is unknown.
        case unknown(StorageError)
    }

    /// Makes the data file hold every logged batch by itself (one sync), then empties the log,
    /// durably: after this, writing the data file outside the log is safe. Does nothing when
    /// the log holds no record. The caller holds the flush lock.
    private func checkpointLogLocked() throws {
        guard let log, let file, log.hasRecords else { return }
        try file.sync()
        let published = state.withLock { $0.published }
        try log.reset(base: published.transaction, fileID: published.fileID)
        if sharesWriting { lockFile?.storeWriterState(nextTransaction: 0, logCursor: log.sharedCursor) }
    }

    /// ``checkpointLogLocked()`` under the flush lock; `shrinking` (a clean close) then cuts the
    /// log file back to its header.
    /// (Internal, not private: `deinit` and ``close()`` call it from `Database.swift`.)
    /// Beside other writing processes it needs write ownership; without `waiting`, it does
    /// nothing while another process owns writing (a closing process leaves the checkpoint to
    /// the owner, or to the last process to close, rather than wait for another's transaction).
    func checkpointLog(shrinking: Bool = false, waiting: Bool = true) throws {
        try flushLock.withLock { _ in
            guard try takeOwnershipLocked(waiting: waiting) else { return }
            defer { releaseOwnershipIfIdleLocked() }
            try checkpointLogLocked()
            if shrinking { log?.shrink() }
        }
    }

    /// Writes the batch's pages, then the meta page: through the log when the batch fits in one
    /// record (``writeThroughLog(_:entries:bytes:meta:file:log:)``), in place otherwise
    /// (``writeInPlace(_:file:)``), or into the map of an in-memory database.
    ///
    /// Only the batch's last version becomes readable (the others were never published), so a
    /// page that one commit wrote and a later commit of the batch replaced is skipped: under
    /// group commit, eight one-object commits write one copy of the leaf-to-root path instead of
    /// eight. Nothing can read a skipped page: no published version reaches it, and it may be
    /// reused only after the commit that freed it is durable.
    private func writeBatch(_ sorted: [(number: PageNumber, page: DirtyPage)], meta: MetaPage, slot: Int) throws {
        let metaPage = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { metaPage.deallocate() }
        meta.encode(into: metaPage)

        // What can fail for want of space or memory comes first, while nothing of the batch is
        // written anywhere: the file is allocated to cover every page the batch writes (so the
        // writes to places below never grow it, and a full disk fails here rather than after a
        // log record, or at a replay), and readers' map covers the version before it is durable.
        // Pages at the end may be allocated yet unwritten (freed again before the commit); the
        // file must still cover the version's page count, or open would call it truncated.
        let end = sorted.last.map { $0.number + UInt64($0.page.pages) } ?? 0
        try file?.extend(toPages: max(meta.pageCount, end))
        try state.withLock { _ in try map.ensureMapped(pageCount: meta.pageCount) }
        if map.isStoredThrough {
            // In memory, the map is the storage; in an encrypted file, it holds the plaintext
            // (readers of the new version then need not decrypt what was just written).
            for (number, page) in sorted {
                map.store(page.pointer, byteCount: page.pages * PageLayout.pageSize, atPage: number)
            }
        }
        guard let file else {
            map.store(metaPage, byteCount: PageLayout.pageSize, atPage: PageNumber(slot))
            return
        }
        var (groups, entries) = Self.writeGroups(sorted)
        groups.append((UInt64(slot) << PageLayout.pageShift, [iovec(iov_base: metaPage, iov_len: PageLayout.pageSize)]))
        entries.append(LogLayout.Entry(page: PageNumber(slot), pages: 1, transaction: meta.transaction))
        defer { map.decryption?.invalidate(PageNumber(slot)) }  // see writeMeta
        let bytes = entries.reduce(0) { $0 + Int($1.pages) } * PageLayout.pageSize
        if let log, bytes <= WriteAheadLog.recordLimit {
            try writeThroughLog(groups, entries: entries, bytes: bytes, meta: meta, file: file, log: log)
        } else {
            try writeInPlace(groups, file: file)
        }
    }

    /// The pages a batch writes, in page order: the first commit's table as it is (a lone
    /// commit's is not copied), then each later commit's pages over it, once the earlier pages it
    /// freed are dropped.
    /// - Complexity: O(p log p) for p pages written, plus the freed runs' lengths where they are
    ///   shorter than the table.
    private static func pagesWritten(by batch: [PreparedCommit]) -> [(number: PageNumber, page: DirtyPage)] {
        var pages = batch[0].pages
        for commit in batch.dropFirst() {
            for run in commit.freed where !pages.isEmpty {
                if run.count > UInt64(pages.count) {
                    for (number, _) in pages where number >= run.start && number < run.end { pages[number] = nil }
                } else {
                    for number in run.start..<run.end { pages[number] = nil }
                }
            }
            for (number, page) in commit.pages { pages[number] = page }
        }
        var sorted = pages.map { (number: $0.number, page: $0.page) }
        sorted.sort { $0.number < $1.number }
        return sorted
    }

    /// The runs of consecutive page numbers `sorted` writes.
    private static func runs(of sorted: [(number: PageNumber, page: DirtyPage)]) -> [PageRun] {
        var runs: [PageRun] = []
        for (number, page) in sorted {
            if let last = runs.last, last.end == number {
                runs[runs.count - 1].count += UInt64(page.pages)
            } else {
                runs.append(PageRun(start: number, count: UInt64(page.pages)))
            }
        }
        return runs
    }

    /// One vectored write per run of consecutive page numbers of `sorted`, with the log entry of
    /// each page. The caller appends the meta page, so that it goes in the same call (an
    /// encrypted file tags the pages of all of them two at a time). The order of writes before
    /// the sync does not matter: recovery checks the whole batch (or replays the whole record).
    private static func writeGroups(_ sorted: [(number: PageNumber, page: DirtyPage)])
        -> (groups: [(offset: UInt64, buffers: [iovec])], entries: [LogLayout.Entry]) {
        var groups: [(offset: UInt64, buffers: [iovec])] = []
        var entries: [LogLayout.Entry] = []
        var index = 0
        while index < sorted.count {
            let start = sorted[index].number
            var next = start
            var buffers: [iovec] = []
            while index < sorted.count, sorted[index].number == next {
                let page = sorted[index].page
                buffers.append(iovec(iov_base: page.pointer, iov_len: page.pages * PageLayout.pageSize))
                entries.append(LogLayout.Entry(page: next, pages: UInt64(page.pages), transaction: UnsafeRawPointer(page.pointer).pageTransaction))
                next += UInt64(page.pages)
                index += 1
            }
            groups.append((start << PageLayout.pageShift, buffers))
        }
        return (groups, entries)
    }

    /// A batch that fits in one log record: the record appended, the data pages written to their
    /// places while it travels to the disk, the log synced, then the meta page written (the meta
    /// page, which names the new version, only once the record is durable). `groups` ends with
    /// the meta page's; `bytes` is the record's page images' size.
    private func writeThroughLog(_ groups: [(offset: UInt64, buffers: [iovec])], entries: [LogLayout.Entry], bytes: Int,
                                 meta: MetaPage, file: PageFile, log: WriteAheadLog) throws {
        try file.forEachStoredChunk(of: groups, chunkBytes: bytes) { stored in
            do {
                try log.append(entries: entries, images: stored, transaction: meta.transaction, pageCount: meta.pageCount)
            } catch let error as StorageError {
                // A failed append is not a valid record (see `WriteAheadLog`).
                throw BatchFailure.discarded(error, stopsWrites: false)
            }
            // The data pages go to their places while the record travels to the disk (the
            // append started its write-back): they are at page numbers no version recovery
            // can choose uses, as in an in-place batch.
            precondition(stored.last.map { $0.offset < UInt64(2 * PageLayout.pageSize) } ?? false, "the meta page is written last")
            var failure: (error: StorageError, isSync: Bool)?
            do {
                try file.writeStored(stored.dropLast())
            } catch let error as StorageError {
                failure = (error, false)
            }
            if failure == nil {
                do { try log.sync() } catch let error as StorageError { failure = (error, true) }
            }
            if let failure {
                // The record is whole in the log's page cache: a reopen would replay it, and
                // write-back may make it durable. Taken back, the batch did not happen.
                do {
                    try log.retractLastRecord()
                } catch let retraction as StorageError {
                    throw BatchFailure.unknown(Self.unknownOutcome(failure.error, retraction))
                }
                throw BatchFailure.discarded(failure.error, stopsWrites: failure.isSync)
            }
            do {
                try file.writeStored(stored.suffix(1))
            } catch let error as StorageError {
                throw BatchFailure.durable(error)
            }
        }
    }

    /// A batch too large for a log record: the log checkpointed (emptied), the pages written to
    /// their places, then the meta page, then one sync. `groups` ends with the meta page's.
    private func writeInPlace(_ groups: [(offset: UInt64, buffers: [iovec])], file: PageFile) throws {
        do {
            // Nothing of the batch is written yet; a failure leaves the log as it was, or
            // empty with the data file synced.
            try checkpointLogLocked()
        } catch let error as StorageError {
            throw BatchFailure.discarded(error, stopsWrites: true)
        }
        do {
            try file.write(groups: Array(groups.dropLast()))
        } catch let error as StorageError {
            throw BatchFailure.discarded(error, stopsWrites: false)
        }
        do {
            // A write that fails may still have written some of the page: all of the new
            // meta's fields, as the bytes it did not write (a no-replication meta's zeros,
            // the file id) are those of the version it overwrites.
            try file.write(groups: Array(groups.suffix(1)))
        } catch let error as StorageError {
            throw BatchFailure.metaToRetract(error, stopsWrites: false)
        }
        do {
            if options.durability == .full { try file.sync() }
        } catch let error as StorageError {
            throw BatchFailure.metaToRetract(error, stopsWrites: true)
        }
    }

    /// Writes a meta page into its slot. Nothing reads meta pages through the map after the
    /// open, but an encrypted map's plaintext of the slot is dropped, so that it never differs
    /// from the file.
    private func writeMeta(_ page: UnsafeRawPointer, slot: Int, to file: PageFile) throws {
        defer { map.decryption?.invalidate(PageNumber(slot)) }
        try file.write(UnsafeRawBufferPointer(start: page, count: PageLayout.pageSize), at: UInt64(slot) << PageLayout.pageShift)
    }

    /// Writes the published version's meta page into `slot`, the other one, and syncs: takes
    /// back an in-place batch's meta page that a failed write or sync left there. Both slots
    /// then name the same version; in an encrypted file, the published transaction's counter at
    /// `slot` only ever encrypts this same page (every other meta written there has its own
    /// id). The next batch writes its meta into `slot` again.
    func rewritePublishedMeta(over slot: Int) throws {
        guard let file else { return }
        let published = state.withLock { $0.published }
        let page = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { page.deallocate() }
        published.encode(into: page)
        try writeMeta(page, slot: slot, to: file)
        if options.durability == .full { try file.sync() }
    }

    /// Records that the newest version is durable, so the next open need not verify its batch.
    ///
    /// Opening verifies every page the newest meta's batch wrote (a crash may have torn it); after
    /// a bulk load that is the whole file. A closing database knows its last sync succeeded, so it
    /// writes the same version again as transaction `T + 1` with durable base `T` into the other
    /// meta slot: nothing is newer than the durable base, and open checks nothing. Costs one sync.
    ///
    /// `force` writes it even when the newest version needs no verification, to raise the
    /// newest durable id (see ``idReserve``). Takes the flush lock: it writes a meta slot.
    /// (Internal, not private: `deinit`, ``close()`` and ``beginWrite()`` call it from other files.)
    /// `waiting`: as for ``checkpointLog(shrinking:waiting:)``; returns false if it did nothing
    /// because another process owns writing.
    @discardableResult
    func writeCheckpoint(force: Bool = false, waiting: Bool = true) throws -> Bool {
        guard file != nil else { return true }
        return try flushLock.withLock { _ in
            guard try takeOwnershipLocked(waiting: waiting) else { return false }
            defer { releaseOwnershipIfIdleLocked() }
            try writeCheckpointLocked(force: force)
            return true
        }
    }

    private func writeCheckpointLocked(force: Bool) throws {
        guard let file else { return }
        // With commits pending, a meta naming the published content under a newer id than
        // theirs would hide them on the next open; callers flush first.
        let (published, slot, next, pending) = state.withLock { ($0.published, $0.publishedSlot, $0.nextTransaction, $0.pending.count) }
        guard pending == 0, force || published.durableBase < published.transaction else { return }
        // A meta written in place: the log must hold nothing a replay would write over it.
        try checkpointLogLocked()
        var checkpoint = published
        checkpoint.transaction = max(published.transaction + 1, next)
        checkpoint.durableBase = published.transaction
        let page = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { page.deallocate() }
        checkpoint.encode(into: page)
        try writeMeta(page, slot: 1 - slot, to: file)
        if options.durability == .full { try file.sync() }
        state.withLock { state in
            state.published = checkpoint
            state.publishedTip.meta = checkpoint
            state.publishedSlot = 1 - slot
            state.nextTransaction = checkpoint.transaction + 1
            publishToOtherProcesses(checkpoint, slot: 1 - slot, state: &state)
            if state.pending.isEmpty { state.tip.meta = checkpoint }
        }
    }
}
