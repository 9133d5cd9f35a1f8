import Foundation

/// Replication slots and change records in a write transaction.
///
/// **Why retained versions stay intact.** A page that commit *F* stops using belongs to the
/// versions before *F*. Without slots it goes to the free list and is reused once no reader
/// pins a version that sees it — and on the next open every free page is reusable, since no
/// reader survives a restart. A slot must survive restarts, so while one exists a commit does not
/// give the free list the pages it stops using: it lists them in its ``ChangeRecord``, stored
/// in the same commit. Those pages are neither free nor reachable from the newest version, so
/// nothing — no later commit, no later process — can reuse them. Every version after the oldest
/// slot's position therefore stays readable: version *v*'s pages are either still in use by the
/// newest version or listed by the record of the commit that stopped using them, which is
/// later than *v*.
///
/// When every slot has confirmed a commit *F* (or the last slot is dropped), the next commit
/// removes *F*'s record and frees its runs as its own frees: they become reusable once that
/// commit is durable and no reader pins a version that uses them (``FreeList``). The free list
/// stores each with the versions that see it — from its writer (the record's `createdBy`) to
/// the releasing commit — so any writer that reads the list later applies the same rule.
/// Until that commit is durable, a crash falls back to a version that still lists them.
///
/// Which pages a record retains: the pages the commit's own edits stopped using (tables, indexes,
/// the catalog), taken before the record itself is written. A commit that edited no table and
/// no catalog entry keeps no record at all; the version before it reads the same. The record and slot trees' own old
/// pages are freed as usual: no retained version is read through them (records and slots are
/// always read from the newest version).
extension WriteTransaction {
    // MARK: Slots

    /// The replication slots, as this transaction sees them, by number.
    package func replicationSlots() throws -> [ReplicationSlot] {
        try replicationSlots(in: slotsRoot)
    }

    /// The commits after `version` that the change records hold, as of this transaction's
    /// start (its own record is stored at prepare): how many, and when the oldest was made.
    package func replicationBacklog(after version: TransactionID) throws -> (commits: Int, oldestCommitTime: Int64?) {
        try replicationBacklog(in: changeRecordsRoot, after: version)
    }

    /// Creates a slot at the version this transaction is built on: the consumer's first commit
    /// to read is this transaction's. `maximumRetainedPages` and `maximumLag` (nanoseconds) limit
    /// what it may keep (0: no limit; see ``ReplicationSlot``, "Bounded retention").
    ///
    /// - Throws: `invalidInput` for a malformed name or one a slot already has.
    @discardableResult
    package func createReplicationSlot(named name: String, maximumRetainedPages: UInt64 = 0,
                                       maximumLag: UInt64 = 0) throws -> ReplicationSlot {
        try checkActive()
        guard ReplicationSlot.isValidName(name) else {
            throw StorageError(.invalidInput, "A replication slot's name is 1 to 63 letters, digits and underscores, not '\(name)'")
        }
        let slots = try replicationSlots()
        guard !slots.contains(where: { $0.name == name }) else {
            throw StorageError(.invalidInput, "A replication slot named '\(name)' exists already")
        }
        let position = base.meta.transaction
        // The position's identity: its commit's, if a record names it (another slot retains it);
        // otherwise one drawn now, which this slot's consumer keeps with the version.
        let commit = try record(at: position)?.commitID ?? Self.randomID()
        let slot = ReplicationSlot(number: (slots.last?.number ?? 0) + 1, name: name, confirmed: position, createdBy: transaction,
                                   id: Self.randomID(), confirmedCommit: commit, recordedAtPosition: recordedPages,
                                   maximumRetainedPages: maximumRetainedPages, maximumLag: maximumLag)
        try store(slot)
        return slot
    }

    /// Drops a slot; the versions only it retained are freed by this commit.
    ///
    /// - Throws: `invalidInput` if no slot has the name.
    package func dropReplicationSlot(named name: String) throws {
        try checkActive()
        let slot = try replicationSlots().slot(named: name)
        _ = try remove(from: &slotsRoot, key: slot.number)
    }

    /// Records that the slot's consumer has applied every commit through `version`; the commits
    /// no slot needs any more are freed by this commit. A position at or before the slot's own
    /// changes nothing (confirmations are idempotent), and so does any confirmation of an
    /// invalidated slot (its position is the commit that invalidated it).
    ///
    /// The slot's new position takes the identity of the newest commit at or before `version`
    /// that has a record (`version`'s own, when the consumer confirms a commit it applied).
    ///
    /// - Throws: `invalidInput` if no slot has the name, or `version` is newer than the version
    ///   this transaction is built on.
    package func confirmReplicationSlot(named name: String, through version: TransactionID) throws {
        try checkActive()
        var slot = try replicationSlots().slot(named: name)
        guard version <= base.meta.transaction else {
            throw StorageError(.invalidInput, "Cannot confirm version \(version) for slot '\(name)': the newest version is \(base.meta.transaction)")
        }
        guard version > slot.confirmed, !slot.isInvalidated else { return }
        if let (_, summary) = try newestRecord(after: slot.confirmed, through: version) {
            slot.confirmedCommit = summary.commitID
            slot.recordedAtPosition = summary.recordedThrough
        }
        slot.confirmed = version
        try store(slot)
    }

    /// Invalidates the slot at an operator's request (``ReplicationSlot/Invalidation/resynchronizationRequested``):
    /// its consumer is to start again from a snapshot of a new slot. As a limit's invalidation,
    /// its position moves to the newest record at or before this transaction's base, it retains
    /// nothing from this commit on (this commit frees what only it kept), and confirming it
    /// changes nothing; the date is now. A slot a limit invalidated takes the new reason (it
    /// retains nothing already); one already asked is left as it is. Returns the slot as before.
    ///
    /// - Throws: `invalidInput` if no slot has the name.
    @discardableResult
    package func requestResynchronization(ofSlotNamed name: String) throws -> ReplicationSlot {
        try checkActive()
        guard var slot = try replicationSlots().first(where: { $0.name == name }) else {
            throw StorageError(.invalidInput, "There is no replication slot named '\(name)'")
        }
        let before = slot
        guard slot.invalidation != .resynchronizationRequested else { return before }
        if !slot.isInvalidated {
            if let (key, newest) = try newestRecord(after: slot.confirmed, through: base.meta.transaction) {
                slot.confirmed = key
                slot.confirmedCommit = newest.commitID
            }
            slot.recordedAtPosition = recordedPages
        }
        slot.invalidatedAt = max(1, Int64(Date().timeIntervalSince1970 * 1e9))
        slot.invalidation = .resynchronizationRequested
        try store(slot)
        return before
    }

    /// Stores `slots`, each invalidated, in a transaction that has no slots yet: a compacted
    /// copy keeps the slots a limit invalidated (their consumers are still refused with the
    /// reason), at this transaction's base, retaining nothing.
    package func adoptInvalidatedSlots(_ slots: [ReplicationSlot]) throws {
        try checkActive()
        precondition(slotsRoot.isEmpty && slots.allSatisfy(\.isInvalidated), "only invalidated slots are adopted, into a file without slots")
        for var slot in slots {
            slot.confirmed = base.meta.transaction
            slot.recordedAtPosition = 0
            try store(slot)
        }
    }

    private func store(_ slot: ReplicationSlot) throws {
        _ = try slot.encoded().withUnsafeBytes { try put(into: &slotsRoot, key: slot.number, value: $0) }
    }

    /// The decoded record of commit `transaction`, if the records tree (as this transaction sees
    /// it) holds one.
    private func record(at transaction: TransactionID) throws -> ChangeRecord? {
        var found: ChangeRecord?
        try forEach(in: changeRecordsRoot, from: transaction) { key, value in
            if key == transaction { found = try ChangeRecord.decode(value, transaction: key) }
            return false
        }
        return found
    }

    /// The newest record after `start` and at or before `end`, as its fixed fields.
    /// - Complexity: O(log records + the records in the range).
    private func newestRecord(after start: TransactionID, through end: TransactionID) throws -> (TransactionID, ChangeRecord.Summary)? {
        guard start < end else { return nil }
        var found: (TransactionID, ChangeRecord.Summary)?
        try forEach(in: changeRecordsRoot, from: start + 1) { key, value in
            guard key <= end else { return false }
            found = (key, try ChangeRecord.summary(of: value, transaction: key))
            return true
        }
        return found
    }

    /// A random nonzero id: a slot's, or a commit's.
    static func randomID() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return max(1, generator.next())
    }

    // MARK: Change records

    /// At prepare, after the catalog is final: with a slot, stores this commit's change record,
    /// retaining the pages it freed; invalidates the slots whose limits it passes; then frees the
    /// records every valid slot has confirmed (all of them once no valid slot is left). Without slots or
    /// records, does nothing (one check).
    func recordChanges() throws {
        guard !slotsRoot.isEmpty || !changeRecordsRoot.isEmpty else { return }
        var slots = try replicationSlots()
        let now = Int64(Date().timeIntervalSince1970 * 1e9)
        // A commit that changed no table and no catalog entry (one that only creates, drops or
        // confirms slots) keeps no record: no retained version reads the pages it freed (slot
        // and record trees are read at the newest version only), and a consumer confirming
        // what it applied does not see its own confirmation as a commit to apply.
        // Only valid slots keep anything: an invalidated one is refused to its consumer, so no
        // record is written for it and it holds none back.
        if slots.horizon != nil, !changeLog.isEmpty || catalog != base.meta.catalog {
            let retained = freed.reduce(0) { $0 + $1.run.count }
            let record = ChangeRecord(
                commitTime: now, baseTransaction: base.meta.transaction,
                baseCatalog: base.meta.catalog, changes: changeLog, retained: freed,
                commitID: Self.randomID(), recordedThrough: recordedPages + retained)
            freed = []
            retainedPages += retained
            recordedPages += retained
            _ = try record.encoded().withUnsafeBytes { try put(into: &changeRecordsRoot, key: transaction, value: $0) }
        }
        slots = try enforceRetentionLimits(slots, now: now)
        // Records every valid slot has confirmed: the commit's changes are applied everywhere,
        // and no slot reads the versions before it (all of them, once no valid slot is left —
        // this commit's own too, when it invalidated the last valid slot: no slot will read it,
        // and a record left behind would retain its pages, and keep the file from compacting,
        // until some later commit).
        let horizon = slots.horizon ?? .max
        var confirmed: [(TransactionID, ChangeRecord)] = []
        try forEach(in: changeRecordsRoot) { key, value in
            guard key <= horizon else { return false }
            confirmed.append((key, try ChangeRecord.decode(value, transaction: key)))
            return true
        }
        for (key, record) in confirmed {
            _ = try remove(from: &changeRecordsRoot, key: key)
            retainedPages -= min(retainedPages, record.retainedPages)
            // Freed by this commit: reusable once it is durable and no reader pins a version
            // from when the pages were written to now.
            freed += record.retained.map { FreedRun(run: $0.run, createdBy: $0.createdBy, freedBy: transaction) }
        }
        // No replication state left: the file is format 8 again, and the counter starts over.
        if slotsRoot.isEmpty, changeRecordsRoot.isEmpty { recordedPages = 0 }
    }

    /// Invalidates each slot whose records retain more than its page limit, or whose oldest
    /// unconfirmed commit is older than its lag limit: its position moves to this commit (the
    /// newest record's identity) so it retains nothing from now on, and it is listed in
    /// ``invalidatedSlots``. Returns the slots as they are after.
    ///
    /// - Complexity: O(1) for a slot without limits; O(log records) for one with a lag limit.
    private func enforceRetentionLimits(_ slots: [ReplicationSlot], now: Int64) throws -> [ReplicationSlot] {
        var result = slots
        for index in result.indices where !result[index].isInvalidated
            && (result[index].maximumRetainedPages > 0 || result[index].maximumLag > 0) {
            var slot = result[index]
            var reason = ReplicationSlot.Invalidation.none
            if slot.maximumRetainedPages > 0, recordedPages - min(recordedPages, slot.recordedAtPosition) > slot.maximumRetainedPages {
                reason = .retainedPages
            } else if slot.maximumLag > 0, let oldest = try oldestRecord(after: slot.confirmed),
                      now - oldest.commitTime > Int64(clamping: slot.maximumLag) {
                reason = .lag
            }
            guard reason != .none else { continue }
            if let (key, newest) = try newestRecord(after: slot.confirmed, through: transaction) {
                slot.confirmed = key
                slot.confirmedCommit = newest.commitID
            }
            slot.recordedAtPosition = recordedPages
            slot.invalidatedAt = now
            slot.invalidation = reason
            try store(slot)
            result[index] = slot
            invalidatedSlots.append(slot)
        }
        return result
    }

    /// The oldest record after `version`, as its fixed fields.
    private func oldestRecord(after version: TransactionID) throws -> ChangeRecord.Summary? {
        var found: ChangeRecord.Summary?
        try forEach(in: changeRecordsRoot, from: version + 1) { key, value in
            found = try ChangeRecord.summary(of: value, transaction: key)
            return false
        }
        return found
    }
}
