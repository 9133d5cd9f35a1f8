#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One open database: a file (or anonymous memory), its versions, readers and the single writer.
///
/// - Readers call ``beginRead()`` and get the newest durable version, pinned until released.
/// - One writer at a time calls ``beginWrite()``; a write transaction builds on the newest
///   *prepared* version, so the writer can run transaction N+1 while N is being flushed.
/// - ``WriteTransaction/prepare()`` seals a transaction; ``flush()`` writes every prepared commit
///   with one sync and then publishes the newest to readers ("group commit").
///
/// Commit protocol (one sync per batch): data pages, then the meta page in the slot not holding
/// the newest durable version. A batch of at most `WriteAheadLog.recordLimit` bytes is appended
/// to the write-ahead log in one write and one `fdatasync`, then written to its places without a
/// sync (see `WriteAheadLog` for why that is safe); a larger one is written in place, in one
/// series of writes followed by one `fdatasync`. Each child pointer records the transaction of
/// the page it points to, and each meta records the newest transaction that was durable before
/// its batch, so on open the pages of the newest batch are verified (checksum and transaction),
/// and if any is torn or missing the previous meta is used.
///
/// The log's invariant (see `WriteAheadLog`) — every write to the data file since its last sync
/// is a page of a record durable in the log, or a data page at a number no recoverable version
/// uses — is kept here: a logged batch's meta page goes home only after the log's sync, and
/// whatever writes the data file outside the log (a large batch, a meta-only checkpoint) first
/// calls ``checkpointLogLocked()``.
///
/// Thread safety: `state` is guarded by a mutex; flushes are serialized by `flushLock`; the page
/// map is written only under `state`'s lock.
///
/// This file holds the type, its state and the invariants above, and its end (``close()``,
/// `deinit`). The rest is by concern: opening, the lock file, encryption detection, log replay
/// and recovery in `Database+Opening.swift`; readers, pins and the version counters in
/// `Database+Reading.swift`; starting a write transaction and queueing its commit in
/// `Database+Writing.swift`; the flush — the batch's writes, the log's append and sync, taking
/// back a failed batch, checkpoints — in `Database+Flush.swift`.
package final class Database: Sendable {
    package let path: String?
    package let options: DatabaseOptions
    /// The version the file was opened at: the one recovery chose. (The first write transaction
    /// re-publishes it under a new transaction id; see ``idReserve``.)
    package let openedVersion: TransactionID
    let map: PageMap
    let file: PageFile?
    /// The write-ahead log, when small batches go through one (a file opened for writing with
    /// full durability and `writeAheadLog`).
    let log: WriteAheadLog?
    /// How many write-ahead log records the open replayed — commits a crash left only in the
    /// log: onto the file (a writable open), or into memory (a read-only one).
    package let recordsReplayed: Int
    /// The lock file this process is attached through (nil in memory): see ``LockFile``.
    let lockFile: LockFile?

    struct State {
        /// The newest durable version: what readers get.
        var published: MetaPage
        var publishedTip: VersionTip
        /// Which meta slot (0 or 1) holds `published`.
        var publishedSlot: Int
        /// Prepared but unflushed commits, oldest first.
        var pending: [PreparedCommit] = []
        /// What the next write transaction builds on.
        var tip: VersionTip
        var generation: UInt64 = 0
        /// The lowest transaction id never given to a commit. Ids are never reused: a failed flush
        /// may have left its meta page (naming pages stamped with its id) in the file, and a retry
        /// under the same id could then pass recovery's checks with a mix of both batches' pages.
        var nextTransaction: TransactionID
        /// The newest transaction a failed flush discarded (0 if none): a commit with an id up to
        /// this that is not durable never will be.
        var discardedThrough: TransactionID = 0
        /// Why the last failed flush discarded its commits (reported to transactions built on them).
        var discardReason: StorageError?
        /// The most versions that may be live at once (nil: no limit); see ``checkVersionLimit()``.
        var maximumActiveVersions: Int?
        var writerActive = false
        /// Free pages whose memory an anonymous map may give back (see ``FreePageMemory``).
        var freePageMemory = FreePageMemory()
        /// Pinned versions and their reader counts.
        var pins: [TransactionID: Int] = [:]
        /// In a process that follows another's versions (a read-only open beside other processes):
        /// the lock file's publish counter of the version adopted last (see ``beginRead()``);
        /// nil in a process that makes its own versions.
        var adoptedCounter: UInt64?
        /// In an encrypted file other processes use: the written-pages ring's head when this
        /// database last adopted or published a version (its decrypted pages forget what other
        /// processes wrote since; see `forgetPagesWrittenElsewhere`).
        var ringSeen: UInt64 = 0
        /// Set after a failed sync: the file's state in the page cache is unknown, so nothing
        /// more may be written through this instance.
        var failure: StorageError?
        var isClosed = false
        /// Whether this process owns writing (see `Database+WriteOwnership.swift`); always false
        /// without `sharesWriting`, where the process is the only writer.
        var ownsWrite = false
        /// When this process's turn of writing began (see ``Database/writeQuantum``): when it took
        /// ownership after another process had it.
        var ownedSince = ContinuousClock.now
        /// Whether this process's turn is over (see ``Database/yieldToWaitingProcess()``): its
        /// next release hands writing over to the processes waiting.
        var turnEnding = false
        /// The lock file's publish counter at the version `tip` was built on (this process's last
        /// publish, or the version it adopted): another counter there means another process
        /// published since, and a writer rebuilds its tip before writing.
        var tipCounter: UInt64 = 0
        /// Whether `tip`'s free list is that of an older version than `published`, which another
        /// process made: rebuilt from the file before the next write transaction.
        var tipIsStale = false
        /// The newest version adopted from another writing process (see `newestForeignVersion`).
        var newestForeignVersion: TransactionID = 0

        /// The id the next write transaction gets.
        var nextID: TransactionID { max(tip.meta.transaction + 1, nextTransaction) }
    }

    // `state`, `flushLock` and the initializer were private while this type was one file; they
    // are internal only so that its `Database+…` files can reach them. Nothing else in the
    // module may use them: the invariants above (which fields change together, what runs under
    // `flushLock`, that only `open` and `inMemory` make a database) are kept by those files.
    let state: Lock<State>
    let flushLock = Lock(())

    init(path: String?, options: DatabaseOptions, map: PageMap, file: PageFile?, log: WriteAheadLog? = nil,
                 recordsReplayed: Int = 0, lockFile: LockFile?, meta: MetaPage, slot: Int, tip: VersionTip,
                 nextTransaction: TransactionID) {
        self.path = path
        self.options = options
        openedVersion = meta.transaction
        self.map = map
        self.file = file
        self.log = log
        self.recordsReplayed = recordsReplayed
        self.lockFile = lockFile
        state = Lock(State(published: meta, publishedTip: tip, publishedSlot: slot, tip: tip,
                            nextTransaction: nextTransaction))
    }

    /// How far transaction ids may run ahead of the newest durable version.
    ///
    /// Recovery tells a page a commit really wrote from stale bytes at a reused page number by the
    /// transaction id its parent expects, so an id must never be stamped on two different pages
    /// at the same number — not even across a crash. A process that dies leaves behind, at free
    /// page numbers, the pages of the batch it was writing (and of batches whose write failed),
    /// stamped with ids above the newest durable version *P*, and no meta records them. The
    /// writer therefore never hands out an id above `P + idReserve` (``beginWrite()`` flushes
    /// first when it would), and an open continues at `newest meta + idReserve + 1`, above every
    /// id the previous process can have stamped. Without the jump, a process reopened after a
    /// torn batch would write the same ids at the same page numbers (allocation is
    /// deterministic), and a later crash could pass off the old batch's pages as the new one's.
    /// The first write transaction after the open finds its id above that bound, so it first
    /// writes a meta naming the opened version under the new id (one page, one sync): should
    /// this process die before its first commit lands, the next open still starts above every id
    /// it used. 2^20 ids per open leaves room for 2^43 opens.
    static let idReserve: TransactionID = 1 << 20

    deinit {
        // The last reference is gone, so no transaction is open: finish what `close()` would
        // have done if nobody called it (flush, and record that the newest version is durable).
        let needsClose = state.withLock { !$0.isClosed && $0.failure == nil }
        if needsClose && !options.readOnly {
            _ = try? flush()
            try? checkpointLog(shrinking: true, waiting: false)
            _ = try? writeCheckpoint(waiting: false)
        }
        file?.close()
        lockFile?.detach()
    }

    /// Flushes pending commits, then detaches from the lock file so the file may be opened again.
    ///
    /// - Throws: `.wrongTransactionState` while a read or write transaction is alive (another
    ///   instance could otherwise reuse pages they still read); the sync failure that stopped
    ///   writes, or a failure of the final flush, after releasing the file. Later calls do nothing.
    package func close() throws {
        try state.withLock { state in
            guard !state.writerActive, state.pins.isEmpty else {
                throw StorageError(.wrongTransactionState,
                                   "Cannot close the database while transactions are open (\(state.pins.values.reduce(0, +)) readers)",
                                   path: path)
            }
        }
        let failure = state.withLock { $0.failure }
        var closeError: (any Error)? = failure
        if !options.readOnly && failure == nil {
            do {
                try flush()
                // Not waiting for another writing process's transaction: it (or the last
                // process to close) checkpoints.
                try checkpointLog(shrinking: true, waiting: false)
                _ = try writeCheckpoint(waiting: false)
            } catch {
                closeError = error
            }
        }
        let alreadyClosed = state.withLock { state in
            defer { state.isClosed = true }
            return state.isClosed
        }
        if !alreadyClosed { lockFile?.detach() }
        // After a failed sync the last commits may not be on disk: closing says so rather than
        // pretending all is well, but still releases the file.
        if !alreadyClosed, let closeError { throw closeError }
    }
}
