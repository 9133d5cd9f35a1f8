// Write ownership between processes (PROCESSES.md §3.6 and §3.8; issue 39, step 5): a database
// opened with `sharesWriting` writes only while its process owns writing — from the start of a
// write transaction until its commits are durable and no write transaction is open (group
// commit within the process is unchanged while it owns). Taking ownership brings the database
// up to what other processes made: the published version, the write-ahead log's cursor, the next
// transaction id; the write tip (free list) is rebuilt from the file when another process
// published since this one's tip. Databases without `sharesWriting` own writing for as long as
// they are open (their process is the only writer), and nothing here does anything for them.
//
// Lock order: `flushLock`, then the write byte lock (a process waits for it holding `flushLock`:
// none of its flushes can run without ownership anyway), then `state`.
extension Database {
    /// Whether this database hands write ownership to and from other processes.
    package var sharesWriting: Bool { lockFile?.sharesWriting == true && !options.readOnly }

    /// Takes write ownership unless this process has it: waits for the other writing processes
    /// (blocking the calling thread), then adopts what they left. Precondition: `flushLock` held.
    ///
    /// - Throws: when the previous owner died and its unpublished writes cannot be taken back
    ///   (then this process does not own writing), or the published version is damaged.
    ///
    /// - Returns: false, without waiting, if `waiting` is false and another process owns writing.
    @discardableResult
    func takeOwnershipLocked(waiting: Bool = true) throws -> Bool {
        guard sharesWriting, let lockFile else { return true }
        let (owns, failure) = state.withLock { ($0.ownsWrite, $0.failure) }
        // Writes stopped (see `releaseOwnershipIfIdleLocked`): never own writing again.
        if let failure { throw failure }
        guard !owns else { return true }
        guard let ownership = try lockFile.acquireWriteOwnership(waiting: waiting) else { return false }
        do {
            if ownership.previousOwnerDied {
                try takeBackDeadOwnersWrites(ownership)
            } else if let cursor = ownership.logCursor {
                log?.adopt(cursor)
            }
            try state.withLock { state in
                state.nextTransaction = max(state.nextTransaction, ownership.nextTransaction)
                if lockFile.publishCounter != state.tipCounter {
                    try adoptPublishedForWriting(from: lockFile, into: &state)
                }
                state.ownsWrite = true
                if !ownership.continuesTurn { state.ownedSince = .now }
            }
        } catch {
            lockFile.releaseWriteOwnership()
            throw error
        }
        return true
    }

    /// How long a process keeps writing while another process waits for it, before it gives
    /// writing up at its next write transaction (see ``yieldToWaitingProcess()``): long enough
    /// that a hand-over (a wake-up, the next owner's adoption and tip rebuild) costs a small
    /// part of each turn, short enough that a waiting write sees its turn within milliseconds.
    package static let writeQuantum = Duration.milliseconds(5)

    /// Ends this process's turn if it has lasted ``writeQuantum`` and another process waits for
    /// writing: makes its pending commits durable (group commit's batch ends here) and releases,
    /// handing over; whether it did. The caller then takes ownership again, after the
    /// waiting process (`LockFile.acquireWriteOwnership(waiting:)`). Called before a write
    /// transaction begins, the only point where this process holds nothing open.
    ///
    /// - Complexity: one clock read while the quantum lasts; then O(slots in use) shared loads.
    func yieldToWaitingProcess() throws -> Bool {
        guard sharesWriting, let lockFile,
              state.withLock({ $0.ownsWrite && ContinuousClock.now - $0.ownedSince >= Self.writeQuantum }),
              lockFile.anotherProcessWaitsToWrite() else { return false }
        state.withLock { $0.turnEnding = true }
        // A flush ends idle (nothing pending, no transaction open: this one has not begun), and
        // gives writing up as it ends — handing over, since the turn is ending.
        _ = try flush()
        return true
    }

    /// Waits (blocking the calling thread: a thread of its own, never a task's) until this
    /// process owns writing — the runtime calls it when a write would wait for another process.
    /// Ownership may be given up again before the next write begins (a flush of this process
    /// ending idle), which then tries again.
    package func waitForWriteOwnership() throws {
        try flushLock.withLock { _ in _ = try takeOwnershipLocked(waiting: true) }
    }

    /// Gives write ownership back if this process holds it with nothing to write (see
    /// ``releaseOwnershipIfIdleLocked()``): a write that waited for it and was cancelled.
    package func releaseWriteOwnershipIfIdle() {
        flushLock.withLock { _ in releaseOwnershipIfIdleLocked() }
    }

    /// Whether versions of this file may be made by other processes: it follows a writing
    /// process, or writes beside others. Their commits come without a change log here.
    package var versionsComeFromOtherProcesses: Bool { followsAnotherProcess || sharesWriting }

    /// The newest version this database adopted from another writing process (0 if none): a span
    /// of versions ending above it holds no other process's commit, so this process's change
    /// logs describe it whole. (In a follower every version is another process's.)
    package var newestForeignVersion: TransactionID { state.withLock { $0.newestForeignVersion } }

    /// Gives write ownership up if this process holds it and is idle: nothing pending, no write
    /// transaction open. Stores the log's cursor and the next id for the next owner first.
    /// Precondition: `flushLock` held (so no flush is between its writes and its publish).
    ///
    /// After a failure that stopped writes (a failed sync, a batch that could not be taken back),
    /// the files may hold writes nobody was told were saved — a log record past the stored
    /// cursor, whose retraction failed. Then this process leaves as a dead owner would: the owner
    /// word still names it, so the next owner takes those writes back (warm recovery).
    func releaseOwnershipIfIdleLocked() {
        guard sharesWriting, let lockFile else { return }
        state.withLock { state in
            guard state.ownsWrite, state.pending.isEmpty, !state.writerActive else { return }
            if state.failure == nil {
                lockFile.storeWriterState(nextTransaction: state.nextTransaction, logCursor: log?.sharedCursor)
            }
            state.ownsWrite = false
            let handingOver = state.turnEnding
            state.turnEnding = false
            // Under the state lock: a thread of this process taking ownership again (it holds
            // `flushLock`, which this caller holds) cannot interleave.
            lockFile.releaseWriteOwnership(asDeadOwner: state.failure != nil, handingOver: handingOver)
        }
    }

    /// Makes the newest published version this writer's durable version, after another process
    /// published it: the tip is marked stale (its free list is rebuilt from the file before the
    /// next write transaction, ``rebuildTipIfStale(_:)``). Precondition: `state` is the locked
    /// state; this process does not own writing, or just took ownership.
    func adoptPublishedForWriting(from lockFile: LockFile, into state: inout State) throws {
        let (meta, slot, counter) = try lockFile.requirePublishedVersion(path: path)
        state.adoptedCounter = counter
        state.tipCounter = counter
        guard meta.transaction != state.published.transaction else { return }
        try Self.checkPublished(meta, fileSize: try file?.size(), path: path)
        try map.ensureMapped(pageCount: meta.pageCount)
        forgetPagesWrittenElsewhere(upTo: meta, lockFile: lockFile, state: &state)
        state.published = meta
        state.publishedSlot = slot
        state.publishedTip.meta = meta
        state.tip.meta = meta
        state.tipIsStale = true
        state.newestForeignVersion = meta.transaction
    }

    /// Rebuilds the write tip from the file when another process published since it was built:
    /// the free list of the published version, decoded from its chain, with every process's pins
    /// released against it (format 8/9 keep each stored run's versions). Precondition: `state`
    /// is the locked state of the owner, with nothing pending.
    ///
    /// - Complexity: O(free-list chain entries + pages / 64).
    func rebuildTipIfStale(_ state: inout State) throws {
        guard state.tipIsStale else { return }
        let meta = state.published
        let source = RecoverySource(map: map, pageLimit: meta.pageCount)
        var (freeList, chain) = try FreeListChain.decode(head: meta.freeList, version: meta.transaction,
                                                         pageCount: meta.pageCount, page: source.page)
        freeList.release(pins: allPins(state), durable: meta.transaction)
        let tip = VersionTip(meta: meta, freeList: freeList, chain: chain)
        state.publishedTip = tip
        state.tip = tip
        state.tipIsStale = false
    }

    /// Warm recovery (PROCESSES.md §3.8): the previous owner died owning writing, so the files
    /// may hold what it wrote after its last publish — a log record (synced or not), an
    /// in-place batch's meta page — which no live process has seen and nobody was told was
    /// saved. Both go: the log is cut at the cursor stored with the last publish (or, if the
    /// owner died starting a new generation, the data file is synced and the log reset), and
    /// the published version's meta is written over the other slot and synced, so no later
    /// recovery can choose the dead owner's batch. Its data pages stay where they are: at page
    /// numbers no published version uses. Idempotent: a process dying here leaves the next owner
    /// the same work. Precondition: `flushLock` held, the write lock just taken.
    func takeBackDeadOwnersWrites(_ ownership: LockFile.Ownership) throws {
        guard let lockFile, let file else { return }
        let published = try state.withLock { state -> MetaPage in
            try adoptPublishedForWriting(from: lockFile, into: &state)
            return state.published
        }
        if let log, let cursor = ownership.logCursor {
            if log.headerSalt == cursor.salt {
                try log.cut(to: cursor)
            } else {
                // Died resetting the log: the data file held every record when the reset began.
                try file.sync()
                log.adopt(cursor)
                try log.reset(base: published.transaction, fileID: published.fileID)
                lockFile.storeWriterState(nextTransaction: ownership.nextTransaction, logCursor: log.sharedCursor)
            }
        }
        try rewritePublishedMeta(over: 1 - state.withLock { $0.publishedSlot })
    }
}
