import Dispatch

/// The writer of one file: every write transaction of every handle in the process passes
/// through here, and here alone are the rules that keep commits, their change logs and the
/// schema history in agreement. `Realm.write {}` (blocking) and `Realm.asyncWrite` (suspending)
/// call the same steps; only how they wait differs.
///
/// The life of a write transaction:
///
/// 1. **Lock** — ``begin()`` / ``beginBlocking()`` wait for the file's ``WriteLock``, first come
///    first served. A task cancelled before it holds the lock throws `CancellationError` and
///    never begins.
/// 2. **Begin** — the engine's write transaction, on the newest prepared commit (durable or
///    not), with the schema that commit recorded (``SchemaVersions/schemaForWrite()``). If
///    beginning fails, the lock is released before the error is thrown.
/// 3. The caller edits the transaction; then either ``abort(_:)`` (which releases the lock) or:
/// 4. **Record** — ``commit(_:schema:changes:)`` writes a changed schema into the transaction
///    and hands the commit's change log to the ``ChangeFeed`` *before* preparing it, so whichever
///    version the notifier reads, the logs of every commit in it are there.
/// 5. **Prepare** — the transaction is sealed into a commit that the next writer builds on; a
///    changed schema is recorded for that commit while the lock is still held, so the next
///    writer sees it (readers see it only at versions that include the commit).
/// 6. **Release** — the lock passes to the next writer at once; this commit's sync is pending.
///    If recording or preparing failed, the log is discarded and the transaction aborted before
///    the lock is released, and nothing of it exists.
/// 7. **Durable** — ``waitUntilDurable(_:)`` / ``waitUntilDurableBlocking(_:)`` wait for the
///    ``GroupCommit`` flush that covers the commit (several commits share one sync). Then the
///    feed publishes it to the notifier. If the flush failed, the commit and every commit after
///    it are discarded: its log is dropped here, and its schema entry by the next writer
///    (``SchemaHistory/dropDiscarded(_:)``), so no handle ever reads a schema no version has.
///
/// Shared state: none of its own. The lock, the group commit, the feed and the schema history
/// each guard theirs; steps 2–6 run while the caller holds the write lock, which is what makes
/// "the newest commit" well defined in them.
package final class WritePipeline: Sendable {
    /// The engine's transaction and the schema it builds on, between ``begin()`` and
    /// ``commit(_:schema:changes:)`` or ``abort(_:)``. Whoever holds one holds the write lock.
    package struct OpenWrite {
        package let transaction: WriteTransaction
        /// The schema of the commit the transaction builds on.
        package let schema: SchemaCatalog
    }

    private let database: Database
    private let schemas: SchemaVersions
    private let changeFeed: ChangeFeed
    /// One write transaction at a time, over every handle of the file in the process.
    package let lock = WriteLock()
    /// Makes prepared commits durable, several per sync.
    let groupCommit: GroupCommit
    /// Told of the replication slots a commit invalidates.
    private let monitor: FileMonitor?

    init(database: Database, schemas: SchemaVersions, changeFeed: ChangeFeed, label: String, monitor: FileMonitor?) {
        self.database = database
        self.monitor = monitor
        self.schemas = schemas
        self.changeFeed = changeFeed
        groupCommit = GroupCommit(database: database, label: label, monitor: monitor) { version in
            changeFeed.versionDidBecomeDurable(version)
        }
    }

    // MARK: Steps 1–2

    /// Waits (suspending) for the write lock, then begins a write transaction.
    ///
    /// Runs on the caller's executor (`isolation`), as ``waitUntilDurable(_:isolation:)``,
    /// `WriteLock.lock(isolation:)` and `GroupCommit.waitUntilDurable(_:isolation:)` do: a
    /// nonisolated async function would hop to the shared pool and back, and each hop waits for
    /// a free cooperative thread, which CPU-bound actors may hold for long.
    ///
    /// - Throws: `CancellationError` if the task is cancelled before the transaction begins (the
    ///   lock is then not held); the engine's error if it cannot begin (a database that refuses
    ///   writes after a failed sync).
    package func begin(isolation: isolated (any Actor)? = #isolation) async throws -> OpenWrite {
        try await lock.lock()
        if Task.isCancelled {  // cancelled as the lock was granted: still before anything began
            lock.unlock()
            throw CancellationError()
        }
        while true {
            if let write = try start(waiting: false) { return write }
            // Another process owns writing: waited for on a thread of its own (the wait blocks
            // its thread), then tried again — this process's ownership may go again before the
            // transaction begins (its last flush ending idle gives it up).
            await waitForOwnership()
            if Task.isCancelled {
                // Cancelled while waiting: the ownership just taken goes back at once (held
                // idle, it would keep every other process waiting).
                database.releaseWriteOwnershipIfIdle()
                lock.unlock()
                throw CancellationError()
            }
        }
    }

    /// Blocks the calling thread until it holds the write lock, then begins a write transaction.
    /// For synchronous APIs only: a blocked cooperative thread cannot run other tasks.
    package func beginBlocking() throws -> OpenWrite {
        lock.lockBlocking()
        return try start(waiting: true)!
    }

    /// Step 2. The caller holds the lock; it is released if this throws. Nil, the lock still
    /// held, if another process owns writing and `waiting` is false.
    private func start(waiting: Bool) throws -> OpenWrite? {
        do {
            guard let transaction = try database.beginWrite(waiting: waiting) else { return nil }
            return OpenWrite(transaction: transaction, schema: try schemas.schemaForWrite())
        } catch {
            lock.unlock()
            throw error
        }
    }

    /// Waits, without blocking a task's thread, until this process owns writing (or taking it
    /// failed: the next ``start(waiting:)`` then throws the cause).
    private func waitForOwnership() async {
        let database = database
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // A dispatch thread, not a task's: the wait blocks it until the other process is done.
            DispatchQueue.global().async {
                try? database.waitForWriteOwnership()
                continuation.resume()
            }
        }
    }

    // MARK: Steps 3–6

    /// Discards the transaction and releases the lock.
    package func abort(_ write: OpenWrite) {
        write.transaction.abort()
        lock.unlock()
    }

    /// Records, prepares and releases (steps 4–6): on return the lock has passed on and the
    /// commit waits for its sync.
    ///
    /// - Parameters:
    ///   - schema: the transaction's schema if it changed it, else nil.
    ///   - changes: the commit's change log, for the notifier.
    /// - Returns: the commit's transaction id, to wait for with ``waitUntilDurable(_:)``.
    /// - Throws: the engine's error; then nothing of the transaction exists and the lock is
    ///   released.
    package func commit(_ write: OpenWrite, schema: SchemaCatalog?, changes: CommitChanges) throws -> TransactionID {
        let transaction = write.transaction
        defer { lock.unlock() }
        do {
            if let schema { try transaction.writeSchema(schema.stored) }
            changeFeed.record(changes, for: transaction.transaction)
            let id = try transaction.prepare()
            if let schema { schemas.didPrepare(schema, at: id) }
            if !transaction.invalidatedSlots.isEmpty { monitor?.commitInvalidated(transaction.invalidatedSlots, at: id) }
            return id
        } catch {
            changeFeed.discard(transaction.transaction)
            transaction.abort()  // a no-op if prepare got as far as sealing it
            throw error
        }
    }

    // MARK: Step 7

    /// Suspends until commit `transaction` is durable. Not cancellable: the commit is already on
    /// its way to the disk, and the caller must learn whether it got there.
    ///
    /// - Throws: the flush's error if the commit did not reach the disk; its change log is then
    ///   dropped (whoever learns of the failure may drop it; dropping twice is harmless).
    package func waitUntilDurable(_ transaction: TransactionID, isolation: isolated (any Actor)? = #isolation) async throws {
        do {
            try await groupCommit.waitUntilDurable(transaction)
        } catch {
            changeFeed.discard(transaction)
            throw error
        }
    }

    /// ``waitUntilDurable(_:)``, blocking the thread (flushing on it if no flush covers the
    /// commit yet): the synchronous `write {}` and `commitWrite()`.
    package func waitUntilDurableBlocking(_ transaction: TransactionID) throws {
        do {
            try groupCommit.waitUntilDurableBlocking(transaction)
        } catch {
            changeFeed.discard(transaction)
            throw error
        }
    }
}
