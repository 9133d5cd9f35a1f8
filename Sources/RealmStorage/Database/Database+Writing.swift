// The single writer (see `Database`): starting a write transaction on the newest prepared
// version, and queueing the commit it prepares for the next flush.
extension Database {
    /// Starts the write transaction. Only one may exist at a time.
    package func beginWrite() throws -> WriteTransaction {
        guard !options.readOnly else {
            throw StorageError(.wrongTransactionState, "Cannot write to a realm opened read-only", path: path)
        }
        // Keep every id within `idReserve` of the durable version: make the pending commits
        // durable first if the next id would pass it, or, with nothing pending (the first write
        // after an open, or many failed flushes), record a newer durable id. Only this writer
        // prepares, so the bound holds when the lock is taken below; concurrent flushes only
        // raise the durable version.
        while file != nil, state.withLock({ $0.nextID > $0.published.transaction + Self.idReserve && $0.failure == nil }) {
            if state.withLock({ $0.pending.isEmpty }) { try writeCheckpoint(force: true) } else { try flush() }
        }
        let (writer, unusedMemory) = try state.withLock { state -> (WriteTransaction, [PageRun]) in
            if let failure = state.failure { throw failure }
            guard !state.isClosed else { throw StorageError(.wrongTransactionState, "The database is closed", path: path) }
            guard !state.writerActive else {
                throw StorageError(.wrongTransactionState, "A write transaction is already in progress")
            }
            state.writerActive = true
            let transaction = state.nextID
            precondition(file == nil || transaction <= state.published.transaction + Self.idReserve,
                         "transaction ids ran ahead of the durable version")
            let writer = WriteTransaction(database: self, base: state.tip, below: state.pending.reversed(),
                                          generation: state.generation,
                                          transaction: transaction,
                                          pins: allPins(state), durable: state.published.transaction)
            guard map.isStoredThrough else { return (writer, []) }
            return (writer, state.freePageMemory.note(ripe: writer.newlyReusable, reusable: writer.freeList.reusable))
        }
        // Outside the lock (readers pin under it); before the writer can reuse these pages.
        if !unusedMemory.isEmpty { map.giveBackMemory(of: unusedMemory) }
        return writer
    }

    func writeTransactionEnded() {
        state.withLock { $0.writerActive = false }
    }

    func enqueue(_ commit: PreparedCommit, generation: UInt64) throws {
        try state.withLock { state in
            state.writerActive = false
            if let failure = state.failure { throw failure }
            guard generation == state.generation else {
                // Reported with the failure's code (a full disk is `outOfDiskSpace` for every
                // commit it cost), so callers can act on the cause.
                let reason = state.discardReason
                throw StorageError(reason?.code ?? .fail,
                                   "The transaction was built on commits that failed to reach the disk"
                                       + (reason.map { ": \($0.message)" } ?? ""), path: path)
            }
            state.pending.append(commit)
            state.tip = commit.tip
            state.nextTransaction = commit.tip.meta.transaction + 1
        }
    }
}
