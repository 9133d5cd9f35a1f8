import Foundation
internal import RealmRuntime

// A handle's write transactions: begun through the file's `WritePipeline`, committed in two steps
// (prepared and released, then waited for until durable), or cancelled; and the first error of an
// operation that cannot throw, which fails the commit.
extension Realm {
    /// Whether a write transaction is open on this handle.
    public var isInWriteTransaction: Bool { writer != nil }

    /// Starts a write transaction, waiting (blocking the thread) for other writers of the file to
    /// finish, and advances the handle to the newest version. Traps if one is already open on
    /// this handle or the realm is read-only. In async code use ``asyncWrite(_:isolation:)``,
    /// which suspends instead of blocking.
    public func beginWrite() {
        do {
            try beginWriteOrThrow()
        } catch {
            fatalError("Could not begin a write transaction: \(error)")
        }
    }

    /// ``beginWrite()``, throwing what the engine reports (a database that refuses writes after
    /// a failed sync) instead of trapping: what ``write(_:)`` uses.
    private func beginWriteOrThrow() throws {
        precondition(!isFrozen, "Can't perform transactions on a frozen Realm")
        precondition(writer == nil, "The Realm is already in a write transaction")
        precondition(!configuration.readOnly, "Can't perform transactions on read-only Realms.")
        precondition(asyncWritesWaiting == 0,
                     "Cannot begin a synchronous write while an asyncWrite of this Realm waits for the write lock: it would deadlock. Use asyncWrite.")
        let write: WritePipeline.OpenWrite
        do {
            write = try file.writes.beginBlocking()
        } catch {
            throw Realm.Error.from(error, configuration: configuration)
        }
        try didBeginWrite(write)
    }

    /// Makes `write`, just begun by the file's ``WritePipeline``, this handle's transaction and
    /// advances the handle to the newest version beside it. Aborts it if that version cannot be
    /// read.
    func didBeginWrite(_ write: WritePipeline.OpenWrite) throws {
        let followed: Bool
        do {
            followed = read(try file.beginRead())
        } catch {
            file.writes.abort(write)
            throw Realm.Error.from(error, configuration: configuration)
        }
        guard followed else {
            // Another process (or handle) changed the schema in a way this handle's classes
            // cannot follow. (`write.schema` is that of the version `read` was given, or of
            // this process's own later commits, which its handles made compatibly.)
            file.writes.abort(write)
            throw Realm.Error(.schemaMismatch, SchemaCatalog.unsupportedChangesMessage(unfollowableSchema?.changes ?? []),
                              fileURL: configuration.fileURL)
        }
        openWrite = write
        writer = write.transaction
        catalog = write.schema
        catalogChanged = false
        deferredError = nil
        touch()
    }

    /// Commits the write transaction, returning once it is durable (blocking the thread while the
    /// disk syncs; other writers proceed meanwhile and may share the sync).
    ///
    /// - Throws: the first error of an operation in the transaction that could not throw itself
    ///   (such as a duplicate primary key in `add`), after rolling back; or a commit failure
    ///   (`outOfDiskSpace`, `fileAccess`). Either way nothing of the transaction is written.
    public func commitWrite() throws {
        let transaction = try prepareCommit()
        try finishCommit(transaction) { try file.writes.waitUntilDurableBlocking(transaction) }
    }

    /// Hands the open transaction to the file's ``WritePipeline`` to be recorded, prepared and
    /// released (so the next writer can build on it while this one's sync is pending), and ends
    /// it on this handle. Returns the commit's transaction, to wait for with ``finishCommit(_:_:)``.
    func prepareCommit() throws -> TransactionID {
        guard let write = openWrite else {
            throw Realm.Error(.wrongTransactionState, "Can't commit a non-existing write transaction")
        }
        if let error = deferredError {
            cancelWrite()
            throw error
        }
        commitStarted = ContinuousClock.now
        let changes = CommitChanges(rows: write.transaction.changeLog, silencedObservers: silencedObservers)
        let transaction: TransactionID
        do {
            transaction = try file.writes.commit(write, schema: catalogChanged ? catalog : nil, changes: changes)
        } catch {
            endWrite()
            advance()
            throw Realm.Error.from(error, configuration: configuration)
        }
        endWrite()
        return transaction
    }

    /// Waits (with `wait`, one of the pipeline's waits, which drop a failed commit's change log)
    /// for prepared commit `transaction` to be durable, then advances the handle to the newest
    /// version.
    func finishCommit(_ transaction: TransactionID, _ wait: () throws -> Void) throws {
        do {
            try wait()
        } catch {
            advance()
            throw Realm.Error.from(error, configuration: configuration)
        }
        if let commitStarted { report(.committed(version: transaction, latency: ContinuousClock.now - commitStarted)) }
        advance()
    }

    /// Discards every change of the write transaction. Objects it added become invalid.
    ///
    /// As in Realm, the data of objects deleted in the transaction is restored, but object
    /// instances read before the cancel that were invalidated by the deletion stay invalidated;
    /// read the object again to use it.
    public func cancelWrite() {
        guard let write = openWrite else { return }
        let deleted = deletedInWrite
        file.writes.abort(write)
        endWrite()
        advance()
        for object in deleted { revokedObjects[object] = stamp }
    }


    /// An object by table tree and key, for ``revokedObjects``.
    struct ObjectIdentity: Hashable {
        let tree: TreeID
        let key: UInt64
    }



    /// Forgets the write transaction, which the pipeline has ended (committed or not; the
    /// write lock is released). The handle still reads the version the transaction began at
    /// until ``advance()``.
    private func endWrite() {
        openWrite = nil
        writer = nil
        deletedInWrite = []
        deferredError = nil
        silencedObservers = []
        catalogChanged = false
        catalog = readerCatalog
        touch()
    }

    /// Moves the handle to the newest durable version.
    func advance() {
        if let newest = try? file.beginRead() { read(newest) }
        touch()
    }

    /// Reads `version` from now on: its transaction and its schema, always together. Returns
    /// false, and stays at its version, if `version`'s schema changes what the handle reads in a
    /// way it cannot follow (``SchemaCatalog/unsupportedChanges(to:)``): its objects' accessors
    /// would read retyped columns as their old types. Realm raises "Unsupported schema changes
    /// were made by another client or process" there; this handle keeps reading the last version
    /// it can, and its writes throw that error. Before the handle has opened (its schema
    /// migration) it follows every change: it decides against the newest schema.
    @discardableResult
    func read(_ version: (reader: ReadTransaction, schema: SchemaCatalog)) -> Bool {
        if openedCatalog != nil, version.schema !== readerCatalog {
            let changes = unfollowableSchema?.catalog === version.schema
                ? unfollowableSchema!.changes : readerCatalog.unsupportedChanges(to: version.schema)
            guard changes.isEmpty else {
                unfollowableSchema = (version.schema, changes)
                return false
            }
        }
        reader = version.reader
        readerCatalog = version.schema
        catalog = version.schema
        return true
    }

    /// Runs `block` in a write transaction and commits it; if `block` throws, everything it did
    /// is rolled back and the error rethrown. Blocks the thread while waiting for other writers
    /// and for the disk; in async code use ``asyncWrite(_:isolation:)``.
    ///
    /// - Throws: ``Realm/Error/Code/wrongTransactionState`` if a write transaction is already
    ///   open on this handle; whatever `block` throws; commit errors (see ``commitWrite()``).
    ///
    /// Inside an actor, a block that reads the actor's own properties is actor-isolated, and
    /// Swift 6.3 reports passing it here as "sending the realm" (a known limitation of the
    /// compiler's region analysis); copy what the block needs into local constants first, or use
    /// `asyncWrite`.
    @discardableResult
    public func write<Result>(_ block: () throws -> Result) throws -> Result {
        guard writer == nil else {
            throw Realm.Error(.wrongTransactionState, "Cannot call write() when already in a write transaction")
        }
        try beginWriteOrThrow()
        let result: Result
        do {
            result = try block()
        } catch {
            cancelWrite()
            throw error
        }
        if writer != nil { try commitWrite() }
        return result
    }


    /// The write transaction, or a trap with Realm's message for writing outside one.
    func requireWrite() -> WriteTransaction {
        guard let writer else {
            if isFrozen { fatalError("Attempting to modify a frozen object - call thaw on the Object instance first.") }
            fatalError("Attempting to modify object outside of a write transaction - call beginWrite first.")
        }
        return writer
    }

    /// Records the first failure of a non-throwing write operation.
    func recordDeferredError(_ error: any Swift.Error) {
        if deferredError == nil {
            deferredError = (Realm.Error.from(error, configuration: configuration) as? Realm.Error)
                ?? Realm.Error(.fail, "\(error)")
        }
    }
}
