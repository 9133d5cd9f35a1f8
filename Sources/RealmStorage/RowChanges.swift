/// Which rows of which table trees a write transaction (or several consecutive ones) inserted,
/// removed and updated, and in which columns: the change log notifications are computed from,
/// so observers never diff whole tables to find what changed.
///
/// Recorded by ``WriteTransaction``'s table edits (`insertRow`, `updateValue`, `removeRow`,
/// `dropTree`) as they happen, in memory only: notifications are per process and a log dies
/// with the transaction that made it. Cost: one hash-set or hash-map update per edited row.
///
/// Invariants, per tree: `inserted` and `removed` are disjoint except for a key removed and
/// inserted again (then it is also in `updated` with every column); `updated` holds no key of
/// `inserted`-only rows (a new object has no modifications) and no key of `removed` ones.
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

    package var isEmpty: Bool { trees.values.allSatisfy(\.isEmpty) && droppedTrees.isEmpty }

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

    /// These changes followed by `later` (a transaction built on this one's result).
    package mutating func append(_ later: RowChanges) {
        for tree in later.droppedTrees { recordDrop(tree) }
        for (tree, changes) in later.trees {
            guard trees[tree] != nil else { trees[tree] = changes; continue }
            for key in changes.removed { recordRemove(tree, key) }
            for key in changes.inserted { recordInsert(tree, key) }
            for (key, columns) in changes.updated {
                if trees[tree]!.inserted.contains(key) { continue }
                trees[tree]!.updated[key, default: []].formUnion(columns)
            }
        }
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
