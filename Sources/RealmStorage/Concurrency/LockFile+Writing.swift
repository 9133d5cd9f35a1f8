import CRealmSync

// Write ownership between processes (PROCESSES.md §3.6, issue 39 step 5): which process may append
// to the log and write the data file, and what it hands to the next one. The authority is the
// write byte lock (`LockFileLayout.writeLock`): a byte-range lock, so the kernel releases a dead
// owner's, and any thread may take and release it. Beside it, in shared memory, the words the
// next owner needs: the owner's slot (to tell a dead owner from a clean release), the next
// transaction id, and the write-ahead log's cursor as of the newest published version.
//
// Fairness between processes. The kernel does not queue byte-lock waiters: a release wakes them
// all and whoever asks first gets the lock — often the process that just released it, which
// under steady load would keep writing forever. So a process blocked waiting for the lock says
// so in its slot (`waitsToWrite`). A process's *turn* runs from taking ownership after another
// process had it, across its own releases and takings-back in between (a process goes idle
// between two commits of one task; handing writing over at each would cost a hand-over per
// commit). The owner ends its turn at its first write transaction after ``Database/writeQuantum``
// while another process waits: it releases *handing over*, and does not ask again until one of
// the waiters took ownership (the *ownership epoch* moved; at most ``handoffTimeoutNanoseconds``).
// Among several waiters the kernel picks one; none waits for more than about one quantum per
// process ahead of it.
extension LockFile {
    /// The longest a process that gave writing up waits for a waiting process to take it before
    /// it asks again. A waiter that died does not count (its slot's liveness lock went with it),
    /// so this is reached only when the woken waiter is not scheduled for that long.
    static let handoffTimeoutNanoseconds: UInt64 = 100_000_000

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
        /// Nobody else took ownership since this process last gave it up, not handing over: its
        /// turn goes on (see the fairness notes above).
        package var continuesTurn: Bool
    }

    /// Takes write ownership: waits (blocking the calling thread) until no other process holds
    /// the write lock, takes it, and records this process as the owner. Without `waiting`,
    /// returns nil at once if another process holds it. Precondition: attached with a mapping,
    /// not already the owner (the caller, `Database`, keeps that state).
    ///
    /// - Throws: when the lock cannot be taken (a descriptor error: it cannot happen on an
    ///   attached lock file).
    package func acquireWriteOwnership(waiting: Bool = true) throws -> Ownership? {
        // Handing over: the processes waiting when this one ended its turn go first.
        let last = lastRelease.withLock { $0 }
        if let last, last.handingOver, ownershipEpoch == last.epoch, anotherProcessWaitsToWrite() {
            guard waiting else { return nil }
            waitForHandoff(from: last.epoch)
        }
        var code = realm_lock_byte(descriptor, LockFileLayout.writeLock, 1, 0)
        if code == EAGAIN || code == EACCES {
            guard waiting else { return nil }
            setWaitsToWrite(true)
            code = realm_lock_byte(descriptor, LockFileLayout.writeLock, 1, 1)
            setWaitsToWrite(false)
        }
        guard code == 0 else { throw StorageError.fromErrno(code, "Could not take the realm's write lock", path: path) }
        lastRelease.withLock { $0 = nil }
        var continuesTurn = false
        if let epoch = sharedAddress(LockFileLayout.ownershipEpochOffset),
           let waiters = sharedAddress(LockFileLayout.handoffWaitersOffset) {
            let now = realm_shared_add32(epoch, 1)
            continuesTurn = last.map { !$0.handingOver && $0.epoch &+ 1 == now } ?? false
            if realm_shared_load32(waiters) > 0 { realm_shared_wake_all(epoch) }
        }
        let me = UInt64((ownSlotIndex() ?? -1) + 1)
        let owner = word(at: LockFileLayout.ownerOffset)
        setWord(me, at: LockFileLayout.ownerOffset)
        let stored = word(at: LockFileLayout.writerStateOffset) != 0
        return Ownership(previousOwnerDied: owner != 0 && owner != me,
                         nextTransaction: word(at: LockFileLayout.nextTransactionOffset),
                         logCursor: stored ? storedLogCursor : nil, continuesTurn: continuesTurn)
    }

    /// Gives write ownership up: clears the owner word, then releases the write lock. The
    /// caller stored the log's cursor first (``storeWriterState(nextTransaction:logCursor:)``).
    /// `asDeadOwner` keeps the owner word: the next owner then recovers as after this process's
    /// death (its writes since the stored cursor are not to be trusted). `handingOver` ends this
    /// process's turn: its next ``acquireWriteOwnership(waiting:)`` lets the processes waiting
    /// now take ownership first.
    package func releaseWriteOwnership(asDeadOwner: Bool = false, handingOver: Bool = false) {
        if !asDeadOwner { setWord(0, at: LockFileLayout.ownerOffset) }
        // Read before the unlock: a waiter taking the lock right after moves the epoch past it.
        let epoch = ownershipEpoch
        lastRelease.withLock { $0 = (epoch, handingOver) }
        _ = realm_unlock_byte(descriptor, LockFileLayout.writeLock)
    }

    /// Whether another live process is blocked waiting for write ownership (slot flag
    /// `waitsToWrite`). A flagged slot's liveness is checked (one `fcntl`): a process that died
    /// waiting leaves its flag until its slot is cleared.
    ///
    /// - Complexity: O(slots in use), one shared load each.
    package func anotherProcessWaitsToWrite() -> Bool {
        guard hasMapping else { return false }
        let own = ownSlotIndex()
        return (0..<slotsInUse).contains { slot in
            slot != own && flags(ofSlot: slot).contains(.waitsToWrite)
                && word(at: slotOffset(slot) + LockFileLayout.slotStateOffset) == LockFileLayout.SlotState.attached.rawValue
                && isHeld(slot: slot)
        }
    }

    /// The ownership epoch (see `LockFileLayout.ownershipEpochOffset`); 0 without a mapping.
    var ownershipEpoch: UInt32 {
        sharedAddress(LockFileLayout.ownershipEpochOffset).map { realm_shared_load32($0) } ?? 0
    }

    /// Blocks until another process took write ownership after `released` (the epoch moved), or
    /// ``handoffTimeoutNanoseconds`` passed.
    private func waitForHandoff(from released: UInt32) {
        guard let epoch = sharedAddress(LockFileLayout.ownershipEpochOffset),
              let waiters = sharedAddress(LockFileLayout.handoffWaitersOffset) else { return }
        _ = realm_shared_add32(waiters, 1)
        defer { _ = realm_shared_sub32(waiters, 1) }
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        let deadline = UInt64(clock.tv_sec) * 1_000_000_000 + UInt64(clock.tv_nsec) + Self.handoffTimeoutNanoseconds
        while realm_shared_load32(epoch) == released {
            clock_gettime(CLOCK_MONOTONIC, &clock)
            let now = UInt64(clock.tv_sec) * 1_000_000_000 + UInt64(clock.tv_nsec)
            guard now < deadline else { return }
            realm_shared_wait(epoch, released, deadline - now)
        }
    }

    /// Sets or clears this process's `waitsToWrite` flag (only this process writes its flags
    /// once attached).
    private func setWaitsToWrite(_ waits: Bool) {
        guard let slot = ownSlotOffset() else { return }
        var flags = LockFileLayout.SlotFlags(rawValue: word(at: slot + LockFileLayout.slotFlagsOffset))
        if waits { flags.insert(.waitsToWrite) } else { flags.remove(.waitsToWrite) }
        setWord(flags.rawValue, at: slot + LockFileLayout.slotFlagsOffset)
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
