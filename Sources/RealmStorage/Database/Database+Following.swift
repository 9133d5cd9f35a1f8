// Following another process (see `LockFile+Versions.swift`): a read-only database attached beside
// a writing process takes its versions from the lock file — when a reader begins (`beginRead()`),
// or when its watcher is woken by a publish.
extension Database {
    /// Whether this database follows another process's versions (a read-only open beside processes
    /// that published one): its versions come from elsewhere, with no change log or schema entry.
    package var followsAnotherProcess: Bool { options.readOnly && state.withLock { $0.adoptedCounter != nil } }

    /// In a database that follows another process (whose free list it never loads: it does not
    /// write): the space usage of the newest version, its free list read from the file — free
    /// pages that no process's reader holds are reusable, the others held. Nil otherwise, or if
    /// the free list cannot be read (the figures then count no free pages).
    ///
    /// - Complexity: O(free-list chain pages + runs), reading them from the mapped file.
    func followerSpaceUsage() -> SpaceUsage? {
        guard followsAnotherProcess, let read = try? beginRead() else { return nil }
        let meta = read.meta
        guard var (freeList, _) = try? FreeListChain.decode(head: meta.freeList, version: meta.transaction,
                                                            pageCount: meta.pageCount, page: read.page) else { return nil }
        freeList.release(pins: state.withLock { allPins($0) }, durable: meta.transaction)
        return Self.spaceUsage(of: meta, freeList)
    }

    /// Makes the newest version the lock file publishes this database's newest, mapping the
    /// pages it adds to the file. Precondition: `state` is the locked state of a follower.
    func adoptNewest(from lockFile: LockFile, into state: inout State) throws {
        guard let (meta, slot, counter) = lockFile.publishedVersion(unless: state.adoptedCounter) else { return }
        state.adoptedCounter = counter
        guard meta.transaction > state.published.transaction else { return }
        try Self.checkPublished(meta, fileSize: try file?.size(), path: path)
        try map.ensureMapped(pageCount: meta.pageCount)
        forgetPagesWrittenElsewhere(upTo: meta, lockFile: lockFile, state: &state)
        state.published = meta
        state.publishedSlot = slot
        state.publishedTip.meta = meta
        state.tip.meta = meta
    }

    /// In an encrypted file: forgets the decrypted pages that other processes' publishes wrote
    /// since this database last adopted or published (the written-pages ring), before `meta`, the
    /// version it adopts, becomes visible here. They were written at numbers no version this
    /// process pins reaches (the free list's rule, against every process's pins), so their cached
    /// plaintext belongs to versions nobody here reads any more. A ring that wrapped since: forget
    /// every page. Precondition: `state` is the locked state, and this process does not own
    /// writing (only the owner appends to the ring).
    ///
    /// - Complexity: O(runs published since, + pages forgotten).
    func forgetPagesWrittenElsewhere(upTo meta: MetaPage, lockFile: LockFile, state: inout State) {
        guard let decryption = map.decryption else { return }
        let (runs, head) = lockFile.writtenRuns(since: state.ringSeen)
        for run in runs ?? [PageRun(start: 0, count: meta.pageCount)] where run.start < meta.pageCount {
            decryption.invalidate(run.start, count: min(run.count, meta.pageCount - run.start))
        }
        state.ringSeen = head
    }

    /// Refuses a published version that the file cannot hold or whose fields disagree: mapping
    /// pages past the file's end would turn a read into SIGBUS. The writing process publishes only
    /// versions whose pages it wrote, so this is damage — a lock file written by something else.
    static func checkPublished(_ meta: MetaPage, fileSize: UInt64?, path: String?) throws {
        let pages = (fileSize ?? 0) / UInt64(PageLayout.pageSize)
        guard meta.isConsistent, meta.pageCount <= pages else {
            throw StorageError(.invalidDatabase,
                               "The lock file publishes version \(meta.transaction) of \(meta.pageCount) pages, which the realm file (\(pages) pages) cannot hold: the lock file is damaged",
                               path: path)
        }
    }

    /// In a database that follows another process: the lock file its watcher waits on, and the
    /// publish counter of the version it adopted last (see ``LockFile/waitForPublish(after:timeoutNanoseconds:)``).
    /// Nil in a database that makes its own versions. A watcher holds the lock file while it
    /// waits, not the database: the database's last reference going detaches it, which wakes the
    /// watcher.
    ///
    /// - Throws: `.wrongTransactionState` once the database is closed.
    package func followedLockFile() throws -> (lockFile: LockFile, counter: UInt64)? {
        try state.withLock { state in
            guard !state.isClosed else { throw StorageError(.wrongTransactionState, "The database is closed", path: path) }
            guard let lockFile, let counter = state.adoptedCounter else { return nil }
            return (lockFile, counter)
        }
    }

    /// Adopts the newest version the lock file publishes, if it is newer: its transaction, or nil.
    ///
    /// - Throws: `.wrongTransactionState` once the database is closed; `.invalidDatabase` for a
    ///   published version the file cannot hold.
    package func adoptPublishedVersion() throws -> TransactionID? {
        try state.withLock { state in
            guard !state.isClosed else { throw StorageError(.wrongTransactionState, "The database is closed", path: path) }
            guard let lockFile else { return nil }
            let before = state.published.transaction
            if options.readOnly {
                try adoptNewest(from: lockFile, into: &state)
            } else if !state.ownsWrite, lockFile.publishCounter != state.tipCounter {
                try adoptPublishedForWriting(from: lockFile, into: &state)
            }
            return state.published.transaction > before ? state.published.transaction : nil
        }
    }
}
