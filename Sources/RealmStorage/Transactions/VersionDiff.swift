#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The row changes between two versions of one database, found by comparing their table trees:
/// what describes commits this process has no ``RowChangeLog`` for (another process's, issue 39),
/// with the meaning the log gives them (``RowChanges``): keys only in the newer version are
/// inserted, keys only in the older removed, keys in both updated with the columns whose values
/// differ; a tree the newer version lacks is dropped; a table created since has every row inserted.
///
/// It can be more precise than a log, never less: a write that stored the value already there
/// changes nothing here (the log says updated), a row inserted and removed again in between is
/// not seen (the log says nothing either), and a row removed and inserted again is updated in
/// the columns that differ (the log says every column). What it cannot see is history: a table
/// dropped and created again under the same id in between (``WriteTransaction/createTree()``
/// reuses the greatest id once its tree is gone) reads as its rows' changes, not as a drop.
///
/// Why equal references may be skipped: every reference to a tree page — a catalog root, an
/// inner entry, an overflow reference — names the page *and the transaction that wrote it*,
/// and within one database that pair names one content for good. A page is written only by the
/// transaction stamped on it, before that transaction commits (copy-on-write: a later change
/// copies it to a page under the later transaction; a number freed and reused is stamped with
/// its new writer), and no transaction id is stamped on two different pages at the same number
/// (``Database/idReserve``: ids only grow, across reopens too). So a subtree reached through equal
/// references in both versions holds the same keys with the same values, and is not read.
/// Versions of two different databases share no such guarantee: they are refused.
///
/// The walk keeps, per version, a frontier of what it has not compared yet, in key order: the
/// rows left in the leaf being read, then subtrees, each with a lower bound of its keys (its
/// routing key in the parent). While both fronts are subtrees with equal references, both are
/// skipped; otherwise it opens the front that may hold the smallest key (the other front's rows
/// come first when they are below its lower bound), and merges rows by key. Every key consumed
/// is below every key left on either side, so a front row below the other side's front bound is
/// absent there.
package struct VersionDiff {
    /// The most table leaves (of both versions together) read by default before giving up (see
    /// ``init(from:to:leafLimit:)``).
    package static let defaultLeafLimit = 10_000

    /// What changed from the older version to the newer.
    package private(set) var changes = RowChanges()
    /// Table leaves read, of both versions: the measure of the work (and what the bound counts).
    package private(set) var leavesRead = 0
    /// Inner pages read, of both versions.
    package private(set) var innerPagesRead = 0
    /// Subtrees (and roots) not read because both versions reference the same page.
    package private(set) var subtreesSkipped = 0

    /// Compares `older` with `newer` (any two versions of one database; "older" is the side whose
    /// rows count as removed). Nil when more than `leafLimit` table leaves would be read: the
    /// caller then compares values itself, as it does without a log.
    ///
    /// - Complexity: O(trees) for the catalogs, plus, per table whose root changed, the pages on
    ///   the paths to the differing leaves (depth × changed leaves, at most `leafLimit` leaves of
    ///   both versions together) and their rows × columns (byte strings compared in full, unless
    ///   both hold the same overflow reference). Unchanged subtrees cost nothing beyond their
    ///   entry in a parent that changed. Allocates the change sets and a frontier per table,
    ///   O(depth × 127) entries.
    /// - Throws: `.invalidInput` for versions of two databases; `.invalidDatabase` for a damaged page.
    package init?(from older: ReadTransaction, to newer: ReadTransaction, leafLimit: Int = defaultLeafLimit) throws {
        guard older.database === newer.database else {
            throw StorageError(.invalidInput, "Versions of two different databases cannot be compared by their pages")
        }
        let before = try Self.roots(of: older), after = try Self.roots(of: newer)
        for id in before.keys.sorted() where after[id] == nil { changes.recordDrop(id) }
        var budget = leafLimit
        for (id, newRoot) in after.sorted(by: { $0.key < $1.key }) {
            let oldRoot = before[id] ?? .empty
            guard oldRoot.page != newRoot.page || oldRoot.transaction != newRoot.transaction else {
                if !newRoot.isEmpty { subtreesSkipped += 1 }
                continue
            }
            let oldShape = try TreeShape(oldRoot, in: older), newShape = try TreeShape(newRoot, in: newer)
            switch (oldShape, newShape) {
            case (.table, .table), (.table, .empty), (.empty, .table):
                guard try compareTable(id, oldRoot, oldShape, newRoot, newShape, older, newer, &budget) else { return nil }
            case (.other, .table):
                // Another kind of tree (an index) gone and a table under its id: the log would
                // say dropped, then the table's inserts.
                changes.recordDrop(id)
                guard try compareTable(id, .empty, .empty, newRoot, newShape, older, newer, &budget) else { return nil }
            case (.table, .other):
                changes.recordDrop(id)
            case (.other, _), (.empty, _):
                break  // no table rows on either side
            }
        }
    }

    /// Records the row changes of table `id`; false if they would take more leaves than `budget`
    /// has left.
    private mutating func compareTable(_ id: TreeID, _ oldRoot: TreeRoot, _ oldShape: TreeShape, _ newRoot: TreeRoot,
                                       _ newShape: TreeShape, _ older: ReadTransaction, _ newer: ReadTransaction,
                                       _ budget: inout Int) throws -> Bool {
        var walk = TreeWalk(older: older, newer: newer, budget: budget)
        guard try walk.compare(oldRoot, oldShape.height, newRoot, newShape.height) else { return false }
        budget = walk.budget
        leavesRead += walk.leavesRead
        innerPagesRead += walk.innerPagesRead
        subtreesSkipped += walk.subtreesSkipped
        if !walk.tree.isEmpty { changes.record(walk.tree, of: id) }
        return true
    }

    /// Every tree of a version and its root.
    private static func roots(of version: ReadTransaction) throws -> [TreeID: TreeRoot] {
        var roots: [TreeID: TreeRoot] = [:]
        try version.forEach(in: version.meta.catalog) { id, entry in
            roots[id] = try CatalogEntry.decode(entry)
            return true
        }
        return roots
    }
}

/// What a tree is, read off its leftmost path: a table of `height` levels above its leaves
/// (B+trees keep every leaf at the same depth), another kind of tree, or empty.
private enum TreeShape {
    case empty
    case table(height: Int)
    case other

    var height: Int { if case .table(let height) = self { height } else { 0 } }

    init(_ root: TreeRoot, in version: ReadTransaction) throws {
        guard !root.isEmpty else { self = .empty; return }
        var (number, transaction) = (root.page, root.transaction)
        for height in 0..<maximumTreeDepth {
            guard number >= PageLayout.firstDataPage, number < version.pageLimit else { break }
            // Index pages are not tree pages to `checkedPageOfTree`: told apart before it.
            if [.indexLeaf, .indexInner].contains(version.page(number).pageKind) { self = .other; return }
            let base = try version.checkedPageOfTree(number, transaction: transaction)
            switch base.pageKind {
            case .cluster: self = .table(height: height); return
            case .inner: (number, transaction) = (InnerNode(base).child(0), InnerNode(base).childTransaction(0))
            default: self = .other; return
            }
        }
        throw StorageError(.invalidDatabase, "Realm file is damaged: bad tree page \(number)")
    }
}

/// One table's two versions compared (see ``VersionDiff``).
private struct TreeWalk {
    /// A part of a version not compared yet: a subtree whose keys are all `>= lowerBound`.
    struct Subtree {
        var page: PageNumber
        var transaction: TransactionID
        var lowerBound: UInt64
        /// Levels above the leaves (a leaf: 0), if the tree is well formed; used only to choose
        /// which side to open, never to trust a page.
        var height: Int
        var depth: Int
    }

    /// One version's side of the walk: the rows left in the leaf being read, then `pending`.
    struct Frontier {
        /// Subtrees in key order, the next one last.
        var pending: [Subtree]
        var leaf: ClusterLeaf?
        var row = 0

        init(_ root: TreeRoot, height: Int) {
            pending = root.isEmpty ? [] : [Subtree(page: root.page, transaction: root.transaction, lowerBound: 0, height: height, depth: 0)]
        }

        /// The key of the next row, when a leaf is being read.
        var rowKey: UInt64? { leaf.map { $0.key(row) } }

        mutating func advance() {
            row += 1
            if row == leaf!.count { leaf = nil }
        }
    }

    let older: ReadTransaction
    let newer: ReadTransaction
    /// Leaves that may still be read before giving up.
    var budget: Int
    var tree = RowChanges.Tree()
    var leavesRead = 0
    var innerPagesRead = 0
    var subtreesSkipped = 0

    init(older: ReadTransaction, newer: ReadTransaction, budget: Int) {
        self.older = older
        self.newer = newer
        self.budget = budget
    }

    /// Fills ``tree``; false if the leaf budget ran out.
    mutating func compare(_ oldRoot: TreeRoot, _ oldHeight: Int, _ newRoot: TreeRoot, _ newHeight: Int) throws -> Bool {
        var old = Frontier(oldRoot, height: oldHeight), new = Frontier(newRoot, height: newHeight)
        while true {
            if let oldKey = old.rowKey {
                if let newKey = new.rowKey {
                    if oldKey < newKey {
                        tree.removed.insert(oldKey)
                        old.advance()
                    } else if newKey < oldKey {
                        tree.inserted.insert(newKey)
                        new.advance()
                    } else {
                        let columns = try differingColumns(old.leaf!, old.row, new.leaf!, new.row)
                        if !columns.isEmpty { tree.updated[oldKey] = columns }
                        old.advance()
                        new.advance()
                    }
                } else if let next = new.pending.last, next.lowerBound <= oldKey {
                    guard try open(&new, in: newer) else { return false }
                } else {  // every key left in the newer version is above it
                    tree.removed.insert(oldKey)
                    old.advance()
                }
            } else if let newKey = new.rowKey {
                if let next = old.pending.last, next.lowerBound <= newKey {
                    guard try open(&old, in: older) else { return false }
                } else {
                    tree.inserted.insert(newKey)
                    new.advance()
                }
            } else if let oldNext = old.pending.last {
                guard let newNext = new.pending.last else {
                    guard try open(&old, in: older) else { return false }
                    continue
                }
                if oldNext.page == newNext.page && oldNext.transaction == newNext.transaction {
                    // The same page in both: the same rows (see `VersionDiff`).
                    old.pending.removeLast()
                    new.pending.removeLast()
                    subtreesSkipped += 1
                    continue
                }
                // Open the side that may hold the smaller keys; at the same bound, the taller
                // (its children may be the other's unchanged subtree), or both.
                let openOld = oldNext.lowerBound < newNext.lowerBound
                    || (oldNext.lowerBound == newNext.lowerBound && oldNext.height >= newNext.height)
                let openNew = newNext.lowerBound < oldNext.lowerBound
                    || (oldNext.lowerBound == newNext.lowerBound && newNext.height >= oldNext.height)
                if openOld { guard try open(&old, in: older) else { return false } }
                if openNew { guard try open(&new, in: newer) else { return false } }
            } else if !new.pending.isEmpty {
                guard try open(&new, in: newer) else { return false }
            } else {
                return true
            }
        }
    }

    /// Replaces the frontier's next subtree by its children, or starts reading it if it is a
    /// leaf. False if that leaf is one more than the budget allows.
    private mutating func open(_ side: inout Frontier, in version: ReadTransaction) throws -> Bool {
        let next = side.pending.removeLast()
        guard next.depth < maximumTreeDepth else { throw StorageError(.invalidDatabase, "Realm file is damaged: tree too deep") }
        let base = try version.checkedPageOfTree(next.page, transaction: next.transaction)
        switch base.pageKind {
        case .cluster:
            guard budget > 0 else { return false }
            budget -= 1
            leavesRead += 1
            let leaf = ClusterLeaf(base)
            if leaf.count > 0 { (side.leaf, side.row) = (leaf, 0) }
        case .inner:
            innerPagesRead += 1
            let node = InnerNode(base)
            for index in stride(from: node.count - 1, through: 0, by: -1) {
                // Entry 0's key stands for minus infinity; its keys are bounded by the parent's.
                side.pending.append(Subtree(page: node.child(index), transaction: node.childTransaction(index),
                                            lowerBound: index == 0 ? next.lowerBound : node.key(index),
                                            height: next.height - 1, depth: next.depth + 1))
            }
        default:
            throw StorageError(.invalidDatabase, "Realm file is damaged: page \(next.page) is not a table page")
        }
        return true
    }

    /// The columns in which row `i` of `a` (older) and row `j` of `b` (newer) differ. A column one
    /// leaf lacks (added to the table after the leaf was written) reads as its default there.
    private func differingColumns(_ a: ClusterLeaf, _ i: Int, _ b: ClusterLeaf, _ j: Int) throws -> ColumnMask {
        var columns: ColumnMask = []
        let shared = min(a.columnCount, b.columnCount)
        for column in 0..<shared where try !sameValue(a, i, b, j, column) { columns.insert(column) }
        for column in shared..<max(a.columnCount, b.columnCount) {
            let (leaf, row) = column < a.columnCount ? (a, i) : (b, j)
            if !Self.holdsDefault(leaf, row, column) { columns.insert(column) }
        }
        return columns
    }

    private func sameValue(_ a: ClusterLeaf, _ i: Int, _ b: ClusterLeaf, _ j: Int, _ column: Int) throws -> Bool {
        guard let kind = a.kind(column), kind == b.kind(column), kind != .fixed || a.width(column) == b.width(column) else {
            return false  // stored as different types: a different value
        }
        let aNull = a.isNull(i, column), bNull = b.isNull(j, column)
        if aNull || bNull { return aNull == bNull }
        switch kind {
        case .int: return a.int(i, column) == b.int(j, column)
        case .bool: return a.bool(i, column) == b.bool(j, column)
        // Bit patterns: a stored NaN equals itself, and -0 is not +0 (a change a reader can see).
        case .float: return a.float(i, column).bitPattern == b.float(j, column).bitPattern
        case .double: return a.double(i, column).bitPattern == b.double(j, column).bitPattern
        case .fixed: return Self.equal(a.fixed(i, column), b.fixed(j, column))
        case .bytes:
            switch (a.storedBytes(i, column), b.storedBytes(j, column)) {
            case (.inline(let old), .inline(let new)): return Self.equal(old, new)
            // The same overflow run (page and writer): the same bytes, not read.
            case (.overflow(let old), .overflow(let new)) where old == new: return true
            // Inline and overflowed copies of one value are equal: a string moves between the two
            // when it is written again beside other values (the row's heap budget).
            case (let old, let new): return try Self.equal(older.bytes(of: old), newer.bytes(of: new))
            }
        }
    }

    private static func equal(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> Bool {
        x.count == y.count && (x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
    }

    /// Whether the value is the one a leaf lacking the column reads: null for a nullable column
    /// (one with a null bitmap, as ``ClusterBuilder`` writes exactly those), else the kind's zero.
    private static func holdsDefault(_ leaf: ClusterLeaf, _ row: Int, _ column: Int) -> Bool {
        let spec = ClusterBuilder.spec(of: leaf, column)
        if spec.nullable { return leaf.isNull(row, column) }
        switch spec.kind {
        case .int: return leaf.int(row, column) == 0
        case .bool: return !leaf.bool(row, column)
        case .float: return leaf.float(row, column).bitPattern == 0
        case .double: return leaf.double(row, column).bitPattern == 0
        case .fixed: return leaf.fixed(row, column).allSatisfy { $0 == 0 }
        case .bytes:
            if case .inline(let bytes) = leaf.storedBytes(row, column) { return bytes.isEmpty }
            return false  // an overflow run holds a long string
        }
    }
}
