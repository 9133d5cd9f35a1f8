/// Copy-on-write changes to B+trees of ``ValueLeaf``s and ``InnerNode``s.
///
/// A change copies the path from the root to the leaf (each copy at a new page number, recorded in
/// its parent together with the writing transaction and the new subtree count), then edits the
/// copies. Splits propagate up; a split at the right edge (appending keys in order) moves only the
/// new entry to the new page, so sequentially inserted trees end up full rather than half full.
/// Removal merges a node that falls below a quarter full into a neighbour when both fit in one page.
extension WriteTransaction {
    /// What a child reports to its parent after an insert.
    struct Split {
        var key: UInt64
        var page: PageNumber
        var count: UInt64
    }

    func put(into root: inout TreeRoot, key: UInt64, value: UnsafeRawBufferPointer) throws -> Bool {
        guard value.count <= StorageLimits.maximumValueLength else {
            throw StorageError(.invalidInput, "Value of \(value.count) bytes exceeds the maximum of \(StorageLimits.maximumValueLength) bytes")
        }
        return try withStored(value) { stored, isOverflow in
            if root.isEmpty {
                let leaf = newPage()
                _ = ValueLeafWriter.initialize(leaf.pointer, transaction: transaction)
                    .insert(at: 0, key: key, stored: stored, isOverflow: isOverflow)
                root = TreeRoot(page: leaf.number, transaction: transaction, count: 1)
                return true
            }
            _ = try checkedPageOfTree(root.page)
            let top = writable(root.page)
            let (added, split) = try put(into: top, key: key, stored: stored, isOverflow: isOverflow, depth: 0)
            root.page = top.number
            root.transaction = transaction
            if added { root.count += 1 }
            if let split {
                let newRoot = newPage()
                newRoot.pointer.initializePageHeader(kind: .inner, transaction: transaction)
                let writer = InnerNodeWriter(newRoot.pointer)
                writer.setCount(2)
                writer.set(0, key: 0, child: top.number, transaction: transaction, count: root.count - split.count)
                writer.set(1, key: split.key, child: split.page, transaction: transaction, count: split.count)
                root.page = newRoot.number
            }
            return added
        }
    }

    /// Presents the value as leaf bytes: itself, or a reference to a new overflow run.
    private func withStored<R>(_ value: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, Bool) throws -> R) throws -> R {
        guard value.count > ValueLeaf.maximumInlineLength else { return try body(value, false) }
        let pages = OverflowRun.pages(forLength: value.count)
        let run = newPage(pages: Int(pages))
        run.pointer.initializePageHeader(kind: .overflow, transaction: transaction)
        run.pointer.setU32(PageLayout.auxOffset, UInt32(pages))
        run.pointer.setU64(24, UInt64(value.count))
        (run.pointer + OverflowRun.dataOffset).copyMemory(from: value.baseAddress!, byteCount: value.count)
        let tail = Int(pages) * PageLayout.pageSize - OverflowRun.dataOffset - value.count
        (run.pointer + OverflowRun.dataOffset + value.count).initializeMemory(as: UInt8.self, repeating: 0, count: tail)
        var reference = (UInt64(run.number).littleEndian, transaction.littleEndian, UInt64(value.count).littleEndian)
        return try withUnsafeBytes(of: &reference) { try body($0, true) }
    }

    private func put(
        into node: (number: PageNumber, pointer: UnsafeMutableRawPointer),
        key: UInt64, stored: UnsafeRawBufferPointer, isOverflow: Bool, depth: Int
    ) throws -> (added: Bool, split: Split?) {
        guard depth < maximumTreeDepth else { throw StorageError(.invalidDatabase, "Realm file is damaged: tree too deep") }
        if node.pointer.pageKind == .leaf {
            let writer = ValueLeafWriter(node.pointer)
            var (index, found) = writer.leaf.find(key)
            if found {
                if writer.leaf.isOverflow(index) { releaseOverflow(writer.leaf.overflow(index)) }
                writer.remove(at: index)
            }
            if writer.insert(at: index, key: key, stored: stored, isOverflow: isOverflow) { return (!found, nil) }
            // Split: at the right edge only the new entry moves; elsewhere the bytes are halved.
            let right = newPage()
            let rightWriter = ValueLeafWriter.initialize(right.pointer, transaction: transaction)
            let count = writer.leaf.count
            if index < count {
                writer.moveTail(from: halfByBytes(writer.leaf), to: rightWriter)
            }
            let leftCount = writer.leaf.count
            let target = index >= leftCount ? rightWriter : writer
            index = index >= leftCount ? index - leftCount : index
            let fits = target.insert(at: index, key: key, stored: stored, isOverflow: isOverflow)
            precondition(fits, "a value of at most a quarter page fits half a leaf")
            return (!found, Split(key: rightWriter.leaf.key(0), page: right.number, count: UInt64(rightWriter.leaf.count)))
        }

        let writer = InnerNodeWriter(node.pointer)
        let index = writer.node.route(key)
        let oldCount = writer.node.childCount(index)
        _ = try checkedPageOfTree(writer.node.child(index))
        let child = writable(writer.node.child(index))
        let (added, childSplit) = try put(into: child, key: key, stored: stored, isOverflow: isOverflow, depth: depth + 1)
        let childCount = oldCount + (added ? 1 : 0) - (childSplit?.count ?? 0)
        writer.setChild(index, page: child.number, transaction: transaction, count: childCount)
        guard let childSplit else { return (added, nil) }

        let position = index + 1
        guard writer.node.count == InnerNode.capacity else {
            writer.insertGap(at: position)
            writer.set(position, key: childSplit.key, child: childSplit.page, transaction: transaction, count: childSplit.count)
            return (added, nil)
        }
        // Split this node too: at the right edge only the new entry moves, elsewhere half.
        let right = newPage()
        right.pointer.initializePageHeader(kind: .inner, transaction: transaction)
        let rightWriter = InnerNodeWriter(right.pointer)
        let from = position == writer.node.count ? position : writer.node.count / 2
        if from < writer.node.count { writer.moveTail(from: from, to: rightWriter) }
        let (target, at) = position >= from ? (rightWriter, position - from) : (writer, position)
        target.insertGap(at: at)
        target.set(at, key: childSplit.key, child: childSplit.page, transaction: transaction, count: childSplit.count)
        let rightNode = rightWriter.node
        let split = Split(key: rightNode.key(0), page: right.number,
                          count: (0..<rightNode.count).reduce(0) { $0 + rightNode.childCount($1) })
        return (added, split)
    }

    /// The split point of a full leaf: the first index at which the slots and values before it
    /// take half the used bytes (at least 1, at most count - 1).
    private func halfByBytes(_ leaf: ValueLeaf) -> Int {
        let total = (0..<leaf.count).reduce(0) { $0 + leaf.heapBytes($1) + ValueLeaf.slotSize }
        var running = 0
        for index in 0..<leaf.count {
            running += leaf.heapBytes(index) + ValueLeaf.slotSize
            if running * 2 >= total { return min(max(index + 1, 1), leaf.count - 1) }
        }
        return leaf.count / 2
    }

    private func releaseOverflow(_ reference: (page: PageNumber, transaction: TransactionID, length: UInt64)) {
        release(reference.page, pages: OverflowRun.pages(forLength: Int(clamping: reference.length)))
    }

    // MARK: Removal

    func remove(from root: inout TreeRoot, key: UInt64) throws -> Bool {
        // Look first, so a miss copies nothing.
        guard let leaf = try leaf(containing: key, in: root), leaf.find(key).found else { return false }
        let top = writable(root.page)
        try remove(from: top, key: key, depth: 0)
        root.page = top.number
        root.transaction = transaction
        root.count -= 1
        // Shrink the root: an empty tree has no pages; an inner root with one child is replaced by it.
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
        return true
    }

    private func remove(from node: (number: PageNumber, pointer: UnsafeMutableRawPointer), key: UInt64, depth: Int) throws {
        guard depth < maximumTreeDepth else { throw StorageError(.invalidDatabase, "Realm file is damaged: tree too deep") }
        if node.pointer.pageKind == .leaf {
            let writer = ValueLeafWriter(node.pointer)
            let (index, found) = writer.leaf.find(key)
            precondition(found, "remove is only called for present keys")
            if writer.leaf.isOverflow(index) { releaseOverflow(writer.leaf.overflow(index)) }
            writer.remove(at: index)
            return
        }
        let writer = InnerNodeWriter(node.pointer)
        let index = writer.node.route(key)
        _ = try checkedPageOfTree(writer.node.child(index))
        let child = writable(writer.node.child(index))
        try remove(from: child, key: key, depth: depth + 1)
        let count = writer.node.childCount(index) - 1
        writer.setChild(index, page: child.number, transaction: transaction, count: count)
        if count == 0 {  // every leaf below is gone, so the child holds no entries
            release(child.number)
            writer.remove(at: index)
            return
        }
        try mergeIfUnderfull(writer, index)
    }

    /// Merges child `index` with a neighbour when it is under a quarter full and both fit in one page.
    private func mergeIfUnderfull(_ parent: InnerNodeWriter, _ index: Int) throws {
        let child = page(parent.node.child(index))
        guard Self.fill(child) < PageLayout.pageSize / 4, parent.node.count > 1 else { return }
        let left = index > 0 ? index - 1 : index
        let right = left + 1
        _ = try checkedPageOfTree(parent.node.child(right))
        let leftPage = page(parent.node.child(left))
        let rightPage = page(parent.node.child(right))
        guard leftPage.pageKind == rightPage.pageKind,
              Self.fill(leftPage) + Self.fill(rightPage) <= PageLayout.pageSize - PageLayout.headerSize
        else { return }
        let target = writable(parent.node.child(left))
        if leftPage.pageKind == .leaf {
            ValueLeafWriter(target.pointer).append(contentsOf: ValueLeaf(rightPage))
        } else {
            let rightNode = InnerNode(rightPage)
            let writer = InnerNodeWriter(target.pointer)
            let first = writer.node.count
            writer.append(contentsOf: rightNode)
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
        if base.pageKind == .leaf {
            let leaf = ValueLeaf(base)
            return leaf.count * ValueLeaf.slotSize + leaf.liveHeapBytes
        }
        return InnerNode(base).count * InnerNode.entrySize
    }

    /// Frees every page of a tree (for `dropTree`).
    func releaseSubtree(_ root: TreeRoot) throws {
        guard !root.isEmpty else { return }
        var stack = [(root.page, 0)]
        while let (number, depth) = stack.popLast() {
            guard depth < maximumTreeDepth else { throw StorageError(.invalidDatabase, "Realm file is damaged: tree too deep") }
            let base = try checkedPageOfTree(number)
            if base.pageKind == .leaf {
                let leaf = ValueLeaf(base)
                for index in 0..<leaf.count where leaf.isOverflow(index) { releaseOverflow(leaf.overflow(index)) }
            } else {
                let node = InnerNode(base)
                for index in 0..<node.count { stack.append((node.child(index), depth + 1)) }
            }
            release(number)
        }
    }
}
