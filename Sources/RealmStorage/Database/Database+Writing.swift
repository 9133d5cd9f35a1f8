// The single writer (see `Database`): starting a write transaction on the newest prepared
// version, and queueing the commit it prepares for the next flush.
extension Database {
    /// Starts the write transaction. Only one may exist at a time. Beside other writing
    /// processes, waits (blocking the thread) while another owns writing.
    package func beginWrite() throws -> WriteTransaction {
        try beginWrite(waiting: true)!
    }

    /// ``beginWrite()``, or nil at once — without `waiting` — if another process owns writing
    /// (the runtime then waits on a thread of its own, ``waitForWriteOwnership()``, and tries again).
    package func beginWrite(waiting: Bool) throws -> WriteTransaction? {
        guard !options.readOnly else {
            throw StorageError(.wrongTransactionState, "Cannot write to a realm opened read-only", path: path)
        }
        // Keep every id within `idReserve` of the durable version: make the pending commits
        // durable first if the next id would pass it, or, with nothing pending (the first write
        // after an open, or many failed flushes), record a newer durable id. Only this writer
        // prepares, so the bound holds when the lock is taken below; concurrent flushes only
        // raise the durable version.
        var started: (writer: WriteTransaction, unusedMemory: [PageRun])?
        do {
            while started == nil {
                // Beside other writing processes: own writing first (it may wait for them), which
                // brings this database up to their commits.
                if sharesWriting, try !flushLock.withLock({ _ in try takeOwnershipLocked(waiting: waiting) }) { return nil }
                // Another process waited a whole quantum: its turn first.
                if try yieldToWaitingProcess() { continue }
                while file != nil, state.withLock({ $0.nextID > $0.published.transaction + Self.idReserve && $0.failure == nil }) {
                    if state.withLock({ $0.pending.isEmpty }) {
                        guard try writeCheckpoint(force: true, waiting: waiting) else { return nil }
                    } else {
                        try flush()
                    }
                }
                started = try startWrite()
            }
        } catch {
            // No transaction began: ownership goes back unless commits are pending.
            if sharesWriting { releaseWriteOwnershipIfIdle() }
            throw error
        }
        // Outside the lock (readers pin under it); before the writer can reuse these pages.
        if let started, !started.unusedMemory.isEmpty { map.giveBackMemory(of: started.unusedMemory) }
        return started!.writer
    }

    /// The write transaction on the newest prepared version, and free pages whose memory may go
    /// back; nil if this process gave write ownership up meanwhile (a flush finished with
    /// nothing pending), so the caller takes it again.
    private func startWrite() throws -> (writer: WriteTransaction, unusedMemory: [PageRun])? {
        try state.withLock { state -> (WriteTransaction, [PageRun])? in
            if let failure = state.failure { throw failure }
            guard !state.isClosed else { throw StorageError(.wrongTransactionState, "The database is closed", path: path) }
            guard !state.writerActive else {
                throw StorageError(.wrongTransactionState, "A write transaction is already in progress")
            }
            if sharesWriting {
                // An open write transaction keeps ownership (release needs none open).
                guard state.ownsWrite else { return nil }
                try rebuildTipIfStale(&state)
            }
            state.writerActive = true
            let transaction = state.nextID
            precondition(file == nil || transaction <= state.published.transaction + Self.idReserve,
                         "transaction ids ran ahead of the durable version")
            // Stored before any page carries the id: a successor of this process, should it die,
            // never stamps it again.
            if sharesWriting { lockFile?.storeWriterState(nextTransaction: transaction + 1, logCursor: nil) }
            let writer = WriteTransaction(database: self, base: state.tip, below: state.pending.reversed(),
                                          generation: state.generation,
                                          transaction: transaction,
                                          pins: allPins(state), durable: state.published.transaction)
            guard map.isStoredThrough else { return (writer, []) }
            return (writer, state.freePageMemory.note(ripe: writer.newlyReusable, reusable: writer.freeList.reusable))
        }
    }

    /// A write transaction ended without a commit; with nothing pending, write ownership goes
    /// back to the other processes.
    func writeTransactionEnded() {
        state.withLock { $0.writerActive = false }
        if sharesWriting { releaseWriteOwnershipIfIdle() }
    }

    func enqueue(_ commit: PreparedCommit, generation: UInt64) throws {
        do {
            try appendToPending(commit, generation: generation)
        } catch {
            // Refused: the transaction is over, and with nothing pending ownership goes back.
            if sharesWriting { releaseWriteOwnershipIfIdle() }
            throw error
        }
    }

    private func appendToPending(_ commit: PreparedCommit, generation: UInt64) throws {
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
