/// The questions every layer asks of a file's slots, answered once here.
extension Array where Element == ReplicationSlot {
    /// The oldest version a slot retains: the oldest position among the valid slots, nil
    /// without one (an invalidated slot keeps nothing). Versions from it to the newest are
    /// readable, and the change records at or before it are freed by the next commit.
    package var horizon: TransactionID? {
        lazy.filter { !$0.isInvalidated }.map(\.confirmed).min()
    }

    /// The slot named `name`.
    /// - Throws: `invalidInput` if no slot has the name.
    package func slot(named name: String) throws -> ReplicationSlot {
        guard let slot = first(where: { $0.name == name }) else {
            throw StorageError(.invalidInput, "There is no replication slot named '\(name)'")
        }
        return slot
    }
}

/// Reading replication slots, change records and the versions they retain.
extension PageSource {
    /// The slots stored in the tree at `root`, by number.
    func replicationSlots(in root: TreeRoot) throws -> [ReplicationSlot] {
        var slots: [ReplicationSlot] = []
        try forEach(in: root) { key, value in
            slots.append(try ReplicationSlot.decode(number: key, value))
            return true
        }
        return slots
    }

    /// The commits after `version` whose records the tree at `root` holds — what a slot at
    /// `version` has not confirmed: how many, and when the oldest of them was made (nil if none).
    ///
    /// - Complexity: O(log records + the records at or before `version`). Records every slot
    ///   has confirmed are freed, so for the slowest slot (the one that holds the space) that is
    ///   none; for another, the records between the slowest one and it.
    func replicationBacklog(in root: TreeRoot, after version: TransactionID) throws -> (commits: Int, oldestCommitTime: Int64?) {
        var behind = 0
        var oldest: Int64?
        try forEach(in: root) { key, value in
            guard key > version else { behind += 1; return true }
            oldest = try ChangeRecord.summary(of: value, transaction: key).commitTime
            return false
        }
        return (Int(root.count) - behind, oldest)
    }
}

extension ReadTransaction {
    /// The replication slots at this version, by number.
    package func replicationSlots() throws -> [ReplicationSlot] {
        try replicationSlots(in: meta.slots)
    }

    /// The commits after `version` that the change records hold: how many, and when the oldest
    /// was made. See ``PageSource/replicationBacklog(in:after:)``.
    package func replicationBacklog(after version: TransactionID) throws -> (commits: Int, oldestCommitTime: Int64?) {
        try replicationBacklog(in: meta.changeRecords, after: version)
    }

    /// How a consumer's position — a version and the commit id it was given with it — relates
    /// to this file's history (see ``ReplicationSlot``, "Identity").
    package enum PositionCheck: Equatable, Sendable {
        /// A version the file retains, made by that very commit: commits after it can be read.
        case retained
        /// The file retains a version of that number, made by another commit: the position comes
        /// from another history (a file restored from an older copy and written since, another
        /// file, a slot dropped and created again).
        case otherHistory
        /// The file no longer retains the version (every slot is past it, or no slot is left) or
        /// never made it (newer than its newest).
        case notRetained
    }

    /// Whether the file still retains the version a consumer reached, and it is the same
    /// commit: a slot's position with its identity, or a commit whose record is kept.
    ///
    /// - Complexity: O(slots + log records).
    package func replicationPosition(_ version: TransactionID, commit: UInt64) throws -> PositionCheck {
        let slots = try replicationSlots()
        // A valid slot's position (an invalidated one retains nothing).
        if slots.contains(where: { !$0.isInvalidated && $0.confirmed == version && $0.confirmedCommit == commit }) { return .retained }
        var summary: ChangeRecord.Summary?
        try forEach(in: meta.changeRecords, from: version) { key, value in
            if key == version { summary = try ChangeRecord.summary(of: value, transaction: key) }
            return false
        }
        if let summary { return summary.commitID == commit ? .retained : .otherHistory }
        if slots.contains(where: { $0.confirmed == version }) { return .otherHistory }
        return .notRetained
    }

    /// The change records of the commits after `version`, oldest first, at most `limit` of them.
    ///
    /// - Complexity: O(log records + the records returned).
    package func changeRecords(after version: TransactionID, limit: Int) throws -> [(transaction: TransactionID, record: ChangeRecord)] {
        var records: [(TransactionID, ChangeRecord)] = []
        guard limit > 0, version < .max else { return [] }
        try forEach(in: meta.changeRecords, from: version + 1) { key, value in
            records.append((key, try ChangeRecord.decode(value, transaction: key)))
            return records.count < limit
        }
        return records
    }
}

extension Database {
    /// A read transaction at `version`: the newest version, or one a replication slot retains
    /// (at or after the oldest slot's position). The version is pinned like any reader's until
    /// the transaction is released.
    ///
    /// Every commit after the oldest slot's position has a change record, whose base root is
    /// the version before it; so `version` reads through the root of the first record after
    /// it, or is the newest version's content if no record follows. A record's base may be
    /// newer than `version` with the same content: the first write after an open stamps the
    /// opened version with a new id, writing no page (see FORMAT.md, "Commit and recovery").
    ///
    /// - Throws: `invalidInput` if the version is older than every slot's position (or there
    ///   is no slot), or newer than the newest.
    package func beginRead(atVersion version: TransactionID) throws -> ReadTransaction {
        let newest = try beginRead()
        if version == newest.transaction { return newest }
        let horizon = try newest.replicationSlots().horizon
        guard let horizon, version >= horizon, version < newest.transaction else {
            throw StorageError(.invalidInput, "Version \(version) is not retained: only the newest version (\(newest.transaction)) and the versions a replication slot has not confirmed can be read", path: path)
        }
        var next: ChangeRecord?
        try newest.forEach(in: newest.meta.changeRecords, from: version + 1) { key, value in
            next = try ChangeRecord.decode(value, transaction: key)
            return false
        }
        if let next, next.baseTransaction < version {
            throw StorageError(.invalidInput, "Version \(version) is not a version of the file", path: path)
        }
        // Pinned while `newest` is still pinned: a commit that frees this version's pages frees
        // them as its own, and they stay in use while any version from when they were written to
        // that commit is pinned — `newest` is one, until this pin is in place.
        return withExtendedLifetime(newest) {
            pin(version)
            var meta = newest.meta
            meta.transaction = version
            meta.catalog = next?.baseCatalog ?? newest.meta.catalog
            meta.freeList = .none
            return ReadTransaction(database: self, meta: meta)
        }
    }

    /// Checks, page by page, up to `limit` of the versions replication slots retain (the
    /// oldest, the newest, and others spread between): each page a version reaches must carry
    /// its checksum and the transaction its parent names — a retained page reused by a later
    /// commit fails. Returns the versions checked.
    package func verifyRetainedVersions(limit: Int) throws -> [TransactionID] {
        let newest = try beginRead()
        guard let horizon = try newest.replicationSlots().horizon else { return [] }
        var versions = [horizon]
        try newest.forEach(in: newest.meta.changeRecords, from: horizon + 1) { key, _ in
            versions.append(key)
            return true
        }
        let sampled = versions.count <= limit ? versions
            : (0..<limit).map { versions[$0 * (versions.count - 1) / max(1, limit - 1)] }
        for version in Set(sampled).sorted() {
            let reader = try beginRead(atVersion: version)
            try IntegrityCheck.verifyTrees(of: reader.meta, in: reader)
        }
        return Set(sampled).sorted()
    }
}
