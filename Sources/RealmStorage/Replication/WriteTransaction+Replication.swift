import Foundation

/// Replication slots and change records in a write transaction.
///
/// **Why retained versions stay intact.** A page that commit *F* stops using belongs to the
/// versions before *F*. Without slots it goes to the free list and is reused once no reader in
/// this process needs it — and on the next open every free page is reusable, since no reader
/// survives a restart. A slot must survive restarts, so while one exists a commit does not
/// give the free list the pages it stops using: it lists them in its ``ChangeRecord``, stored
/// in the same commit. Those pages are neither free nor reachable from the newest version, so
/// nothing — no later commit, no later process — can reuse them. Every version after the oldest
/// slot's position therefore stays readable: version *v*'s pages are either still in use by the
/// newest version or listed by the record of the commit that stopped using them, which is
/// later than *v*.
///
/// When every slot has confirmed a commit *F* (or the last slot is dropped), the next commit
/// removes *F*'s record and frees its runs as its own frees: they become reusable once that
/// commit is durable and no reader of this process pins a version that uses them (``FreeList``).
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
    /// to read is this transaction's.
    ///
    /// - Throws: `invalidInput` for a malformed name or one a slot already has.
    @discardableResult
    package func createReplicationSlot(named name: String) throws -> ReplicationSlot {
        try checkActive()
        guard ReplicationSlot.isValidName(name) else {
            throw StorageError(.invalidInput, "A replication slot's name is 1 to 63 letters, digits and underscores, not '\(name)'")
        }
        let slots = try replicationSlots()
        guard !slots.contains(where: { $0.name == name }) else {
            throw StorageError(.invalidInput, "A replication slot named '\(name)' exists already")
        }
        let slot = ReplicationSlot(number: (slots.last?.number ?? 0) + 1, name: name,
                                   confirmed: base.meta.transaction, createdBy: transaction)
        _ = try slot.encoded().withUnsafeBytes { try put(into: &slotsRoot, key: slot.number, value: $0) }
        return slot
    }

    /// Drops a slot; the versions only it retained are freed by this commit.
    ///
    /// - Throws: `invalidInput` if no slot has the name.
    package func dropReplicationSlot(named name: String) throws {
        try checkActive()
        guard let slot = try replicationSlots().first(where: { $0.name == name }) else {
            throw StorageError(.invalidInput, "There is no replication slot named '\(name)'")
        }
        _ = try remove(from: &slotsRoot, key: slot.number)
    }

    /// Records that the slot's consumer has applied every commit through `version`; the commits
    /// no slot needs any more are freed by this commit. A position at or before the slot's own
    /// changes nothing (confirmations are idempotent).
    ///
    /// - Throws: `invalidInput` if no slot has the name, or `version` is newer than the version
    ///   this transaction is built on.
    package func confirmReplicationSlot(named name: String, through version: TransactionID) throws {
        try checkActive()
        guard var slot = try replicationSlots().first(where: { $0.name == name }) else {
            throw StorageError(.invalidInput, "There is no replication slot named '\(name)'")
        }
        guard version <= base.meta.transaction else {
            throw StorageError(.invalidInput, "Cannot confirm version \(version) for slot '\(name)': the newest version is \(base.meta.transaction)")
        }
        guard version > slot.confirmed else { return }
        slot.confirmed = version
        _ = try slot.encoded().withUnsafeBytes { try put(into: &slotsRoot, key: slot.number, value: $0) }
    }

    // MARK: Change records

    /// At prepare, after the catalog is final: with a slot, stores this commit's change record,
    /// retaining the pages it freed; then frees the records every slot has confirmed (all of
    /// them once no slot is left). Without slots or records, does nothing (one check).
    func recordChanges() throws {
        guard !slotsRoot.isEmpty || !changeRecordsRoot.isEmpty else { return }
        let slots = try replicationSlots()
        // A commit that changed no table and no catalog entry (one that only creates, drops or
        // confirms slots) keeps no record: no retained version reads the pages it freed (slot
        // and record trees are read at the newest version only), and a consumer confirming
        // what it applied does not see its own confirmation as a commit to apply.
        if !slots.isEmpty, !changeLog.isEmpty || catalog != base.meta.catalog {
            let record = ChangeRecord(
                commitTime: Int64(Date().timeIntervalSince1970 * 1e9), baseTransaction: base.meta.transaction,
                baseCatalog: base.meta.catalog, changes: changeLog, retained: freed)
            freed = []
            retainedPages += record.retainedPages
            _ = try record.encoded().withUnsafeBytes { try put(into: &changeRecordsRoot, key: transaction, value: $0) }
        }
        // Records every slot has confirmed: the commit's changes are applied everywhere, and no
        // slot reads the versions before it.
        let horizon = slots.map(\.confirmed).min() ?? .max
        var confirmed: [(TransactionID, ChangeRecord)] = []
        try forEach(in: changeRecordsRoot) { key, value in
            guard key <= horizon, key != transaction else { return false }
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
    }
}
