import CRealmSync

// Write ownership between processes (PROCESSES.md §3.6, issue 39 step 5): which process may append
// to the log and write the data file, and what it hands to the next one. The authority is the
// write byte lock (`LockFileLayout.writeLock`): a byte-range lock, so the kernel releases a dead
// owner's, and any thread may take and release it. Beside it, in shared memory, the words the
// next owner needs: the owner's slot (to tell a dead owner from a clean release), the next
// transaction id, and the write-ahead log's cursor as of the newest published version.
//
// Fairness between processes is the kernel's (a blocked `F_OFD_SETLKW` is granted when the lock
// is released); the ticket pair of §3.6 comes with measurements that show a need (step 9).
extension LockFile {
    /// The write-ahead log's cursor in the lock file (see `LockFileLayout.logSaltOffset`).
    package struct LogCursor: Equatable, Sendable {
        package var salt: UInt64
        package var sequence: UInt64
        package var end: UInt64
        package var lastRecordStart: UInt64

        package init(salt: UInt64, sequence: UInt64, end: UInt64, lastRecordStart: UInt64) {
            self.salt = salt
            self.sequence = sequence
            self.end = end
            self.lastRecordStart = lastRecordStart
        }
    }

    /// What a process finds when it takes write ownership.
    package struct Ownership: Sendable {
        /// The previous owner died owning it (the owner word names another slot): the file may
        /// hold its unpublished writes, which the new owner takes back (warm recovery).
        package var previousOwnerDied: Bool
        /// The shared next transaction id (0 if no writer stored one this session).
        package var nextTransaction: TransactionID
        /// The log's cursor as of the newest published version; nil if no writer stored one.
        package var logCursor: LogCursor?
    }

    /// Takes write ownership: waits (blocking the calling thread) until no other process holds
    /// the write lock, takes it, and records this process as the owner. Without `waiting`,
    /// returns nil at once if another process holds it. Precondition: attached with a mapping,
    /// not already the owner (the caller, `Database`, keeps that state).
    ///
    /// - Throws: when the lock cannot be taken (a descriptor error: it cannot happen on an
    ///   attached lock file).
    package func acquireWriteOwnership(waiting: Bool = true) throws -> Ownership? {
        let code = realm_lock_byte(descriptor, LockFileLayout.writeLock, 1, waiting ? 1 : 0)
        if !waiting && (code == EAGAIN || code == EACCES) { return nil }
        guard code == 0 else { throw StorageError.fromErrno(code, "Could not take the realm's write lock", path: path) }
        let me = UInt64((ownSlotIndex() ?? -1) + 1)
        let owner = word(at: LockFileLayout.ownerOffset)
        setWord(me, at: LockFileLayout.ownerOffset)
        let stored = word(at: LockFileLayout.writerStateOffset) != 0
        return Ownership(previousOwnerDied: owner != 0 && owner != me,
                         nextTransaction: word(at: LockFileLayout.nextTransactionOffset),
                         logCursor: stored ? storedLogCursor : nil)
    }

    /// Gives write ownership up: clears the owner word, then releases the write lock. The
    /// caller stored the log's cursor first (``storeWriterState(nextTransaction:logCursor:)``).
    /// `asDeadOwner` keeps the owner word: the next owner then recovers as after this process's
    /// death (its writes since the stored cursor are not to be trusted).
    package func releaseWriteOwnership(asDeadOwner: Bool = false) {
        if !asDeadOwner { setWord(0, at: LockFileLayout.ownerOffset) }
        _ = realm_unlock_byte(descriptor, LockFileLayout.writeLock)
    }

    /// Stores what the next owner needs: called by the owner before each publish (so every
    /// published version's log record lies below the stored end), after every log reset, and at
    /// each transaction id handed out (`nextTransaction` only grows). Also by a process that
    /// recovered the file with no writer attached, under the control lock. `logCursor` nil: the
    /// process writes without a log (it leaves the stored cursor).
    package func storeWriterState(nextTransaction: TransactionID, logCursor: LogCursor?) {
        guard hasMapping else { return }
        if nextTransaction > word(at: LockFileLayout.nextTransactionOffset) {
            setWord(nextTransaction, at: LockFileLayout.nextTransactionOffset)
        }
        if let logCursor {
            setWord(logCursor.salt, at: LockFileLayout.logSaltOffset)
            setWord(logCursor.sequence, at: LockFileLayout.logSequenceOffset)
            setWord(logCursor.end, at: LockFileLayout.logEndOffset)
            setWord(logCursor.lastRecordStart, at: LockFileLayout.logLastRecordOffset)
        }
        setWord(1, at: LockFileLayout.writerStateOffset)
    }

    /// Clears the owner word: a process that recovered the file with no writer attached (under
    /// the control lock) found whatever a dead owner left, and recovery took it back.
    package func clearOwner() {
        setWord(0, at: LockFileLayout.ownerOffset)
    }

    private var storedLogCursor: LogCursor {
        LogCursor(salt: word(at: LockFileLayout.logSaltOffset), sequence: word(at: LockFileLayout.logSequenceOffset),
                  end: word(at: LockFileLayout.logEndOffset), lastRecordStart: word(at: LockFileLayout.logLastRecordOffset))
    }

    /// The newest published version's publish counter (0 if none): a writer that stored its tip
    /// at counter `c` and finds another here rebuilds its tip from the file.
    package var publishCounter: UInt64 { word(at: LockFileLayout.publishedCounterOffset) }
}
