/// Copy-on-write changes to B+trees: one descent mechanism for every kind of leaf.
///
/// ``WriteTransaction/modify(_:key:edit:)`` copies the path from the root to the leaf that holds
/// `key` (each copy at a new page number, recorded in its parent with the writing transaction and
/// the new subtree count), lets a leaf-specific *edit* change the leaf, then repairs the path:
/// a leaf split inserts its new siblings in the parent (splitting it in turn if full), an emptied
/// child disappears, and a child under a quarter full merges into a neighbour when both fit one page.
/// Splits at the tree's right edge (keys appended in order: the whole path took the last entry)
/// move only the new entry to the new page, so sequentially filled trees end up full rather than
/// half full; anywhere else a split halves the page.
extension WriteTransaction {
    /// A new right sibling that the parent must link to.
    struct Split {
        var key: UInt64
        var page: PageNumber
        var count: UInt64
    }

    /// What an edit of a page did: the change in entry count and, if the page overflowed, its new
    /// right siblings in key order. A leaf adds at most two: a table leaf whose rows may each take
    /// nearly a page (``ClusterBuilder/rowHeapBudget(_:)``) can need three pages for its rows plus
    /// a new one — the rows before it, the new row, the rows after it. An inner page adds at most one.
    struct LeafOutcome {
        var delta: Int
        var splits: [Split]
        /// The page that now holds the edited leaf's first part, when the edit moved it (a leaf
        /// rebuilt wider than its page run: ``ClusterBuilder/preferredPages()``); the edited
        /// page was released. Its parent links to it instead.
        var replacement: PageNumber?

        init(delta: Int) {
            self.delta = delta
            splits = []
        }

        init(delta: Int, split: Split?) {
            self.delta = delta
            splits = split.map { [$0] } ?? []
        }

        init(delta: Int, splits: [Split]) {
            precondition(splits.count <= 2, "a leaf edit adds at most two siblings")
            self.delta = delta
            self.splits = splits
        }

        /// Entries that moved to the new siblings.
        var splitCount: UInt64 { splits.reduce(0) { $0 + $1.count } }
    }

    typealias WritablePage = (number: PageNumber, pointer: UnsafeMutableRawPointer)

    /// Applies `edit` to the leaf that holds (or would hold) `key`; the edit learns whether that
    /// leaf is the tree's last (its right edge). The tree must not be empty.
    @discardableResult
    func modify(_ root: inout TreeRoot, key: UInt64, edit: (WritablePage, _ atRightEdge: Bool) throws -> LeafOutcome) throws -> Int {
        precondition(!root.isEmpty, "modify needs a leaf; callers create the first one")
        _ = try checkedPageOfTree(root.page, transaction: root.transaction)
        let top = writable(root.page)
        let outcome = try modify(top, key: key, depth: 0, atRightEdge: true, edit: edit)
        let topNumber = outcome.replacement ?? top.number
        root.page = topNumber
        root.transaction = transaction
        root.count = UInt64(Int64(root.count) + Int64(outcome.delta))
        if !outcome.splits.isEmpty {
            let newRoot = newPage()
            newRoot.pointer.initializePageHeader(kind: .inner, transaction: transaction)
            let writer = InnerNodeWriter(newRoot.pointer)
            writer.setCount(1 + outcome.splits.count)
            writer.set(0, key: 0, child: topNumber, transaction: transaction, count: root.count - outcome.splitCount)
            for (index, split) in outcome.splits.enumerated() {
                writer.set(1 + index, key: split.key, child: split.page, transaction: transaction, count: split.count)
            }
            root.page = newRoot.number
        }
        // Shrink: an empty tree has no pages; an inner root with one child is replaced by it.
        while !root.isEmpty {
            if root.count == 0 {
                release(root.page)
                root = .empty
                break
            }
            let base = page(root.page)
            guard base.pageKind == .inner, InnerNode(base).count == 1 else { break }
            let node = InnerNode(base)
            let (child, childTransaction) = (node.child(0), node.childTransaction(0))
            release(root.page)
            root.page = child
            root.transaction = childTransaction
        }
        return outcome.delta
    }

    private func modify(_ node: WritablePage, key: UInt64, depth: Int, atRightEdge: Bool,
                        edit: (WritablePage, Bool) throws -> LeafOutcome) throws -> LeafOutcome {
        guard depth < maximumTreeDepth else { throw StorageError(.invalidDatabase, "Realm file is damaged: tree too deep") }
        guard node.pointer.pageKind == .inner else { return try edit(node, atRightEdge) }

        let writer = InnerNodeWriter(node.pointer)
        let index = writer.node.route(key)
        _ = try checkedPageOfTree(writer.node.child(index), transaction: writer.node.childTransaction(index))
        let child = writable(writer.node.child(index))
        let childAtRightEdge = atRightEdge && index == writer.node.count - 1
        let outcome = try modify(child, key: key, depth: depth + 1, atRightEdge: childAtRightEdge, edit: edit)
        let childNumber = outcome.replacement ?? child.number
        let childCount = UInt64(Int64(writer.node.childCount(index)) + Int64(outcome.delta)) - outcome.splitCount
        writer.setChild(index, page: childNumber, transaction: transaction, count: childCount)

        if !outcome.splits.isEmpty {
            return LeafOutcome(delta: outcome.delta,
                               split: insert(outcome.splits, into: writer, at: index + 1, atRightEdge: childAtRightEdge))
        }
        if childCount == 0 {  // every leaf below is gone, so the child holds no entries
            release(childNumber)
            writer.remove(at: index)
        } else if outcome.delta < 0 {
            try mergeIfUnderfull(writer, index)
        }
        return LeafOutcome(delta: outcome.delta)  // this node stays where it is
    }

    /// Links new children (consecutive, in key order, at most two) into an inner node, splitting
    /// the node once if they do not fit: each half of a split node has room for both.
    private func insert(_ splits: [Split], into writer: InnerNodeWriter, at position: Int, atRightEdge: Bool) -> Split? {
        guard writer.node.count + splits.count > InnerNode.capacity else {
            for (offset, split) in splits.enumerated() { link(split, into: writer, at: position + offset) }
            return nil
        }
        let right = newPage()
        right.pointer.initializePageHeader(kind: .inner, transaction: transaction)
        let rightWriter = InnerNodeWriter(right.pointer)
        let from = atRightEdge ? position : writer.node.count / 2
        if from < writer.node.count { writer.moveTail(from: from, to: rightWriter) }
        for (offset, split) in splits.enumerated() {
            let at = position + offset
            if at >= from { link(split, into: rightWriter, at: at - from) } else { link(split, into: writer, at: at) }
        }
        let rightNode = rightWriter.node
        return Split(key: rightNode.key(0), page: right.number,
                     count: (0..<rightNode.count).reduce(0) { $0 + rightNode.childCount($1) })
    }

    private func link(_ split: Split, into writer: InnerNodeWriter, at position: Int) {
        writer.insertGap(at: position)
        writer.set(position, key: split.key, child: split.page, transaction: transaction, count: split.count)
    }

    /// Merges child `index` with a neighbour when it is under a quarter full and both fit in the
    /// left one's pages.
    private func mergeIfUnderfull(_ parent: InnerNodeWriter, _ index: Int) throws {
        guard parent.node.count > 1, case let child = page(parent.node.child(index)),
              Self.fill(child) < Self.span(of: child) * PageLayout.pageSize / 4 else { return }
        let left = index > 0 ? index - 1 : index
        let right = left + 1
        _ = try checkedPageOfTree(parent.node.child(left), transaction: parent.node.childTransaction(left))
        _ = try checkedPageOfTree(parent.node.child(right), transaction: parent.node.childTransaction(right))
        let leftPage = page(parent.node.child(left))
        let rightPage = page(parent.node.child(right))
        guard leftPage.pageKind == rightPage.pageKind else { return }
        // Clusters are decoded to know whether they fit together: merged, their keys and integers
        // may need wider frames of reference than either had.
        let merged = leftPage.pageKind == .cluster
            ? ClusterBuilder(merging: ClusterLeaf(leftPage), ClusterLeaf(rightPage), source: self) : nil
        let leftPages = Self.span(of: leftPage)
        guard merged?.fits(pages: leftPages) ?? Self.canMerge(leftPage, rightPage) else { return }
        let target = writable(parent.node.child(left))
        switch leftPage.pageKind {
        case .leaf:
            ValueLeafWriter(target.pointer).append(contentsOf: ValueLeaf(rightPage))
        case .cluster:
            merged?.encode(into: target.pointer, pages: leftPages, transaction: transaction)
        default:
            let writer = InnerNodeWriter(target.pointer)
            let first = writer.node.count
            writer.append(contentsOf: InnerNode(rightPage))
            // The right node's first entry acted as minus infinity there; here it needs its bound.
            writer.setKey(first, parent.node.key(right))
        }
        let total = parent.node.childCount(left) + parent.node.childCount(right)
        release(parent.node.child(right))
        parent.setChild(left, page: target.number, transaction: transaction, count: total)
        parent.remove(at: right)
    }

    /// Bytes in use in a tree page, headers excluded.
    private static func fill(_ base: UnsafeRawPointer) -> Int {
        switch base.pageKind {
        case .leaf:
            let leaf = ValueLeaf(base)
            return leaf.count * ValueLeaf.slotSize + leaf.liveHeapBytes
        case .cluster:
            return ClusterLeaf(base).usedBytes
        default:
            return InnerNode(base).count * InnerNode.entrySize
        }
    }

    /// Whether two value leaves or inner nodes fit one page.
    private static func canMerge(_ left: UnsafeRawPointer, _ right: UnsafeRawPointer) -> Bool {
        fill(left) + fill(right) <= PageLayout.pageSize - PageLayout.headerSize
    }

    /// Frees every page of a tree (for `dropTree`).
    func releaseSubtree(_ root: TreeRoot) throws {
        guard !root.isEmpty else { return }
        var stack = [(root.page, root.transaction, 0)]
        while let (number, transaction, depth) = stack.popLast() {
            guard depth < maximumTreeDepth else { throw StorageError(.invalidDatabase, "Realm file is damaged: tree too deep") }
            if number < pageLimit, [.indexLeaf, .indexInner].contains(page(number).pageKind) {
                let node = IndexPage(try checkedIndexPage(number, transaction: transaction))
                if node.isInner {
                    for index in 0..<node.count { stack.append((node.child(index), node.childTransaction(index), depth + 1)) }
                }
                release(number)
                continue
            }
            let base = try checkedPageOfTree(number, transaction: transaction)
            switch base.pageKind {
            case .leaf:
                let leaf = ValueLeaf(base)
                for index in 0..<leaf.count where leaf.isOverflow(index) { releaseOverflow(leaf.overflow(index)) }
            case .cluster:
                ClusterLeaf(base).forEachOverflow { releaseOverflow($0) }
            default:
                let node = InnerNode(base)
                for index in 0..<node.count { stack.append((node.child(index), node.childTransaction(index), depth + 1)) }
            }
            release(number)
        }
    }

    func releaseOverflow(_ reference: OverflowReference) {
        release(reference.page, pages: OverflowRun.pages(forLength: Int(clamping: reference.length)))
    }

    /// Writes `value` to a new overflow run and returns the reference a leaf stores.
    func writeOverflow(_ value: UnsafeRawBufferPointer) -> OverflowReference {
        let pages = OverflowRun.pages(forLength: value.count)
        let run = newPage(pages: Int(pages))
        run.pointer.initializePageHeader(kind: .overflow, transaction: transaction)
        run.pointer.setU32(PageLayout.auxOffset, UInt32(pages))
        run.pointer.setU64(24, UInt64(value.count))
        if value.count > 0 {
            (run.pointer + OverflowRun.dataOffset).copyMemory(from: value.baseAddress!, byteCount: value.count)
        }
        let tail = Int(pages) * PageLayout.pageSize - OverflowRun.dataOffset - value.count
        (run.pointer + OverflowRun.dataOffset + value.count).initializeMemory(as: UInt8.self, repeating: 0, count: tail)
        return OverflowReference(page: run.number, transaction: transaction, length: UInt64(value.count))
    }
}

/// Where a large value lives: the first page of its overflow run, the transaction that wrote the
/// run, and the value's length. Stored as 24 bytes in a leaf's heap.
public struct OverflowReference: Equatable, Sendable {
    package var page: PageNumber
    package var transaction: TransactionID
    package var length: UInt64

    @usableFromInline static let size = 24

    @usableFromInline init(page: UInt64, transaction: UInt64, length: UInt64) {  // PageNumber, TransactionID
        self.page = page
        self.transaction = transaction
        self.length = length
    }

    @inlinable init(_ base: UnsafeRawPointer) {
        self.init(page: base.u64(0), transaction: base.u64(8), length: base.u64(16))
    }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var raw = (page.littleEndian, transaction.littleEndian, length.littleEndian)
        return try withUnsafeBytes(of: &raw, body)
    }
}
