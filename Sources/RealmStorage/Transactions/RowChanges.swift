/// What a write transaction did to table rows, as it did it: an append-only list of edits, the
/// cheapest thing a writer can keep (no hashing on the write path — an edit appends, or extends
/// the previous entry when it continues a run of consecutive keys, as bulk inserts and updates
/// of a whole table do). Logs of consecutive commits combine by concatenation. The notifier
/// turns a log into ``RowChanges`` once per version it processes.
///
/// Recorded by ``WriteTransaction``'s table edits (`insertRow`, `updateValue`, `removeRow`,
/// `dropTree`), in memory: notifications are per process and a log dies with the transaction
/// that made it — unless a replication slot exists, when the commit also stores it in its
/// ``ChangeRecord``.
package struct RowChangeLog: Sendable {
    enum Kind: UInt8, Sendable { case insert, update, remove, drop }

    /// `count` consecutive keys from `key` of `tree` (one for `drop`), edited alike.
    struct Entry: Sendable {
        var tree: TreeID
        var key: UInt64
        var count: UInt64
        var column: Int32
        var kind: Kind
    }

    private(set) var entries: [Entry] = []

    package init() {}

    package var isEmpty: Bool { entries.isEmpty }

    /// The number of runs logged (a run is one or more consecutive keys edited alike).
    package var entryCount: Int { entries.count }

    /// Appends an entry as it was stored (no merging with the previous one): how a
    /// ``ChangeRecord`` is read back.
    mutating func appendStored(_ entry: Entry) { entries.append(entry) }

    mutating func record(_ kind: Kind, _ tree: TreeID, _ key: UInt64, column: Int = 0) {
        let column = Int32(clamping: column)
        if let last = entries.last, last.kind == kind, last.tree == tree, last.column == column, kind != .drop,
           last.key &+ last.count == key {
            entries[entries.count - 1].count += 1
        } else {
            entries.append(Entry(tree: tree, key: key, count: 1, column: column, kind: kind))
        }
    }

    /// This log followed by `later` (a transaction built on this one's result).
    package mutating func append(_ later: RowChangeLog) { entries += later.entries }

    /// Calls the body with each key of table `tree` from `lower` through `upper`, in order
    /// (none if the version has no such table, or `tree` is not a table).
    package typealias TableKeys = (_ tree: TreeID, _ lower: UInt64, _ upper: UInt64, _ body: (UInt64) -> Void) throws -> Void

    /// This log with each run cut to the keys that can matter: inserted and updated keys to
    /// those the version after holds (`keysAfter`), removed keys to those the version before
    /// held (`keysBefore`). Its net effect (``RowChanges``) is the same: a key the commit left
    /// absent was, in the end, removed (if it existed before) or nothing; a key it left present
    /// was inserted (if it did not exist before) or kept; and dropping only the edits that
    /// cannot decide that leaves each key's remaining edits in their order. But expanding it
    /// costs the keys the versions hold, not the counts the log claims: a change record read
    /// from a file (a damaged or hostile one) may claim 2^60 inserted keys.
    package func clipped(keysBefore: TableKeys, keysAfter: TableKeys) throws -> RowChangeLog {
        var result = RowChangeLog()
        for entry in entries {
            guard entry.kind != .drop else { result.appendStored(entry); continue }
            guard entry.count > 0 else { continue }
            let keys = entry.kind == .remove ? keysBefore : keysAfter
            let last = entry.key &+ (entry.count - 1)  // keys may wrap (negative primary keys)
            for (lower, upper) in last >= entry.key ? [(entry.key, last)] : [(entry.key, UInt64.max), (UInt64(0), last)] {
                try keys(entry.tree, lower, upper) { result.record(entry.kind, entry.tree, $0, column: Int(entry.column)) }
            }
        }
        return result
    }
}

/// Which rows of which table trees a span of commits inserted, removed and updated, and in
/// which columns: the change log notifications are computed from, so observers never diff whole
/// tables to find what changed. Built from a ``RowChangeLog`` by replaying it in order, or, for
/// commits with no log here, by comparing two versions' trees (``VersionDiff``).
///
/// Invariants, per tree: `inserted` and `removed` are disjoint; `updated` holds no key of
/// `inserted` rows (a new object has no modifications) and no key of `removed` ones; a key
/// removed and inserted again is in `updated` with every column.
package struct RowChanges: Sendable {
    /// The changes to one table tree.
    package struct Tree: Sendable {
        /// Keys of rows that did not exist before.
        package var inserted: Set<UInt64> = []
        /// Keys of rows that existed before and no longer do.
        package var removed: Set<UInt64> = []
        /// Keys of rows that existed before and still do, with the columns written.
        package var updated: [UInt64: ColumnMask] = [:]

        package var isEmpty: Bool { inserted.isEmpty && removed.isEmpty && updated.isEmpty }
    }

    /// Changes per tree; trees nobody edited are absent.
    package private(set) var trees: [TreeID: Tree] = [:]
    /// Trees deleted (a table dropped by a migration).
    package private(set) var droppedTrees: Set<TreeID> = []

    package init() {}

    /// The net effect of the edits in `log`.
    package init(_ log: RowChangeLog) {
        for entry in log.entries {
            if entry.kind == .drop { recordDrop(entry.tree); continue }
            for offset in 0..<entry.count {
                let key = entry.key &+ offset  // keys may wrap (negative primary keys)
                switch entry.kind {
                case .insert: recordInsert(entry.tree, key)
                case .update: recordUpdate(entry.tree, key, column: Int(entry.column))
                case .remove: recordRemove(entry.tree, key)
                case .drop: break
                }
            }
        }
    }

    package var isEmpty: Bool { trees.values.allSatisfy(\.isEmpty) && droppedTrees.isEmpty }

    /// Whether rows of `tree` were inserted, removed or updated.
    package func touches(_ tree: TreeID) -> Bool { trees[tree].map { !$0.isEmpty } ?? false }

    mutating func recordInsert(_ tree: TreeID, _ key: UInt64) {
        if trees[tree, default: Tree()].removed.contains(key) {
            // Removed and inserted again in this span: the same key, every value possibly new.
            trees[tree]!.updated[key] = .all
            trees[tree]!.removed.remove(key)
        } else {
            trees[tree, default: Tree()].inserted.insert(key)
        }
    }

    mutating func recordUpdate(_ tree: TreeID, _ key: UInt64, column: Int) {
        // A row inserted in this span reports as inserted, not modified.
        if trees[tree]?.inserted.contains(key) == true { return }
        trees[tree, default: Tree()].updated[key, default: []].insert(column)
    }

    mutating func recordRemove(_ tree: TreeID, _ key: UInt64) {
        if trees[tree, default: Tree()].inserted.remove(key) != nil { return }
        trees[tree]!.updated.removeValue(forKey: key)
        trees[tree]!.removed.insert(key)
    }

    mutating func recordDrop(_ tree: TreeID) {
        trees.removeValue(forKey: tree)
        droppedTrees.insert(tree)
    }

    /// Sets the changes of `tree` to `changes`, which keep the invariants above (a tree's net
    /// changes found at once, as ``VersionDiff`` finds them, rather than edit by edit).
    mutating func record(_ changes: Tree, of tree: TreeID) {
        trees[tree] = changes
    }
}

/// A set of column numbers: a bit per column below 63; bit 63 stands for "some column at 63 or
/// above", which observers treat as "any such column" (conservative, never missing a change).
package struct ColumnMask: OptionSet, Sendable, Hashable {
    package let rawValue: UInt64
    package init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Every column.
    package static var all: ColumnMask { ColumnMask(rawValue: .max) }

    package init(column: Int) { self.init(rawValue: 1 << UInt64(Swift.min(column, 63))) }

    package mutating func insert(_ column: Int) { formUnion(ColumnMask(column: column)) }

    /// Whether the set may hold `column`.
    package func contains(_ column: Int) -> Bool { !isDisjoint(with: ColumnMask(column: column)) }
}
