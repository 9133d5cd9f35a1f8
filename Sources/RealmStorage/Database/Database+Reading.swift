// Readers and the versions they pin (see `Database`), and what the database reports about its
// versions: space, limits, which commits are durable.
extension Database {
    /// The newest durable version, pinned until the returned transaction is released. In a
    /// process that follows another's versions, the newest the lock file publishes.
    package func beginRead() throws -> ReadTransaction {
        let meta = try state.withLock { state -> MetaPage in
            guard !state.isClosed else { throw StorageError(.wrongTransactionState, "The database is closed", path: path) }
            // Versions come from elsewhere in a follower, and in a writer beside other writing
            // processes while it does not own writing (the owner makes them itself).
            guard let lockFile, state.adoptedCounter != nil, !state.ownsWrite else {
                addPin(state.published.transaction, to: &state)
                return state.published
            }
            while true {
                if options.readOnly {
                    try adoptNewest(from: lockFile, into: &state)
                } else if lockFile.publishCounter != state.tipCounter {
                    try adoptPublishedForWriting(from: lockFile, into: &state)
                }
                let version = state.published.transaction
                addPin(version, to: &state)
                // The first pin of a version reaches the writer through the slot just written.
                // Had it published a newer version before that store, a transaction it began
                // since may have scanned the slots without seeing this pin and be reusing this
                // version's pages: then begin again at the newer one (LMDB's re-check). Else
                // every writer transaction that can free this version's pages begins after a
                // later publish, so after the store, and sees the pin.
                if state.pins[version] == 1, lockFile.publishedVersion(unless: state.adoptedCounter) != nil {
                    removePin(version, from: &state)
                    continue
                }
                return state.published
            }
        }
        return ReadTransaction(database: self, meta: meta)
    }


    /// Pins a version another pin holds already (see ``beginRead(atVersion:)``): its pages are
    /// not reused until ``unpin(_:)``.
    func pin(_ transaction: TransactionID) {
        state.withLock { addPin(transaction, to: &$0) }
    }

    func unpin(_ transaction: TransactionID) {
        state.withLock { removePin(transaction, from: &$0) }
    }

    /// One local pin of `transaction` fewer; its last is withdrawn from the lock file.
    /// Precondition: `state` is the locked state.
    private func removePin(_ transaction: TransactionID, from state: inout State) {
        if let count = state.pins[transaction], count > 1 {
            state.pins[transaction] = count - 1
        } else {
            state.pins[transaction] = nil
            lockFile?.withdrawPin(transaction, remaining: state.pins.keys)
        }
    }

    /// One more local pin of `transaction`; its first is mirrored into the lock file, where the
    /// writers of other processes see it. Precondition: `state` is the locked state.
    private func addPin(_ transaction: TransactionID, to state: inout State) {
        state.pins[transaction, default: 0] += 1
        if state.pins[transaction] == 1 { lockFile?.mirrorPin(transaction) }
    }

    /// The versions pinned in every process: this one's readers and the other processes' slots.
    /// Precondition: `state` is the locked state (this process's pins do not change meanwhile).
    func allPins(_ state: State) -> PinSet {
        let local = PinSet(exact: state.pins.keys)
        guard let lockFile else { return local }
        return local.union(lockFile.otherProcessesPins())
    }

    /// How the file's pages are used at the newest prepared version (see ``SpaceUsage``).
    ///
    /// - Complexity: O(free runs), under the state lock.
    package var spaceUsage: SpaceUsage {
        if let usage = followerSpaceUsage() { return usage }
        return state.withLock { Self.spaceUsage(of: $0.tip.meta, $0.tip.freeList) }
    }

    /// How `meta`'s version, with free list `freeList`, uses the file's pages.
    static func spaceUsage(of meta: MetaPage, _ freeList: FreeList) -> SpaceUsage {
        let page = UInt64(PageLayout.pageSize)
        let total = meta.pageCount
        let free = freeList.pageCount
        let reusable = freeList.reusablePageCount
        let retained = min(meta.retainedPages, total - free)
        return SpaceUsage(fileBytes: total * page, liveBytes: (total - free - retained) * page,
                          freeBytes: reusable * page, heldBytes: (free - reusable) * page,
                          retainedBytes: retained * page, formatVersion: meta.version,
                          hasReplication: meta.hasReplication)
    }

    /// The number of distinct versions readers pin, in every process, plus the newest one (always
    /// live). (A process pinning more versions than its slot's exact entries counts two for them.)
    package var activeVersionCount: Int {
        state.withLock { state in
            var versions = allPins(state).knownVersions
            versions.insert(state.published.transaction)
            return versions.count
        }
    }

    /// The oldest version a reader pins, in any process, if any reader pins one.
    package var oldestPinnedTransaction: TransactionID? { state.withLock { allPins($0).oldest } }

    /// The most versions that may be live at once; nil for no limit. A commit that would make
    /// one more live version than this throws `.maximumActiveVersionsExceeded` (old versions
    /// pinned by readers keep their pages from being reused, so unbounded pinning grows the file).
    package var maximumActiveVersions: Int? {
        get { state.withLock { $0.maximumActiveVersions } }
        set { state.withLock { $0.maximumActiveVersions = newValue } }
    }

    /// Throws if one more version would exceed ``maximumActiveVersions``.
    func checkVersionLimit() throws {
        try state.withLock { state in
            guard let limit = state.maximumActiveVersions else { return }
            // Live after this commit: the pinned versions (in every process, as Realm counts
            // them file-wide), the unflushed commits, and this one.
            let live = allPins(state).knownVersions.count + state.pending.count + 1
            if live > limit {
                throw StorageError(.maximumActiveVersionsExceeded,
                                   "Number of active versions (\(live)) in the Realm exceeded the limit of \(limit)", path: path)
            }
        }
    }

    /// The newest durable version's transaction id.
    package var latestTransaction: TransactionID { state.withLock { $0.published.transaction } }

    /// The newest prepared transaction (durable or still waiting for a flush).
    package var preparedTransaction: TransactionID { state.withLock { $0.tip.meta.transaction } }

    /// Whether the commit `transaction` is durable (true), was discarded by a failed flush
    /// (false), or is still pending (nil).
    package func durability(of transaction: TransactionID) -> Bool? {
        state.withLock { state in
            if transaction <= state.published.transaction { return true }
            if transaction <= state.discardedThrough || state.failure != nil { return false }
            return nil
        }
    }

    /// Why commits that ``durability(of:)`` reports as `false` did not become durable: the error
    /// that stopped writes (also when a flush itself succeeded and only stopped later ones, as
    /// after its meta page failed to reach its place), else the one that discarded them.
    package var discardError: StorageError? { state.withLock { $0.failure ?? $0.discardReason } }

    /// Pages in use plus free pages: the file's length in pages at the newest version.
    package var pageCount: UInt64 { state.withLock { $0.published.pageCount } }

    /// Free pages at the newest durable version (reusable or waiting for readers).
    package var freePageCount: UInt64 { state.withLock { $0.publishedTip.freeList.pageCount } }
}
