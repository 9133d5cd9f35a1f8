// Following another process (see `LockFile+Versions.swift`): a read-only database attached beside
// a writing process takes its versions from the lock file — when a reader begins (`beginRead()`),
// or when its watcher is woken by a publish.
extension Database {
    /// Whether this database follows another process's versions (a read-only open beside processes
    /// that published one): its versions come from elsewhere, with no change log or schema entry.
    package var followsAnotherProcess: Bool { state.withLock { $0.adoptedCounter != nil } }

    /// Whether this process was the only one with the file when it opened it (in memory, or on
    /// read-only media without a lock file: true). Work that replaces the file, such as
    /// compaction, needs it.
    package var isAlone: Bool { lockFile?.isFirst ?? true }

    /// Makes the newest version the lock file publishes this database's newest, mapping the
    /// pages it adds to the file. Precondition: `state` is the locked state of a follower.
    func adoptNewest(from lockFile: LockFile, into state: inout State) throws {
        guard let (meta, slot, counter) = lockFile.publishedVersion(unless: state.adoptedCounter) else { return }
        state.adoptedCounter = counter
        guard meta.transaction > state.published.transaction else { return }
        try Self.checkPublished(meta, fileSize: try file?.size(), path: path)
        try map.ensureMapped(pageCount: meta.pageCount)
        state.published = meta
        state.publishedSlot = slot
        state.publishedTip.meta = meta
        state.tip.meta = meta
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

    /// In a database that follows another process: waits until a version newer than its newest is
    /// published, or about `timeoutNanoseconds` passed, and adopts it. Returns the version adopted
    /// (nil if none came). Blocks the calling thread: a watcher's own, never a task's.
    ///
    /// - Throws: `.wrongTransactionState` once the database is closed (the watcher's signal to
    ///   stop); what mapping the new version's pages throws.
    package func waitForForeignVersion(timeoutNanoseconds: UInt64) throws -> TransactionID? {
        let counter = try state.withLock { state -> UInt64? in
            guard !state.isClosed else { throw StorageError(.wrongTransactionState, "The database is closed", path: path) }
            return state.adoptedCounter
        }
        guard let lockFile, let counter else { return nil }
        _ = lockFile.waitForPublish(after: counter, timeoutNanoseconds: timeoutNanoseconds)
        return try state.withLock { state in
            guard !state.isClosed else { throw StorageError(.wrongTransactionState, "The database is closed", path: path) }
            let before = state.published.transaction
            try adoptNewest(from: lockFile, into: &state)
            return state.published.transaction > before ? state.published.transaction : nil
        }
    }

    /// Counts (or stops counting) a watcher of this process in the lock file, so that the writing
    /// process wakes it on each publish.
    package func watcherStarted() { lockFile?.watcherStarted() }
    package func watcherStopped() { lockFile?.watcherStopped() }
}
